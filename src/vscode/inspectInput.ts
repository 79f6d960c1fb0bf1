/** What the Inspect flow's typed steps accept (free of 'vscode', so unit tests read it directly). */

/** The selectors step's text: a label selector, then optionally `;` and a field selector. */
export function parseSelectors(text: string): { labelSelector?: string; fieldSelector?: string } {
  const [label, ...rest] = text.split(';');
  const field = rest.join(';').trim();
  return { ...(label.trim() ? { labelSelector: label.trim() } : {}), ...(field ? { fieldSelector: field } : {}) };
}

/** A namespace name as Kubernetes accepts it (RFC 1123 label), or why not. */
export function namespaceProblem(text: string): string | undefined {
  return /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(text) ? undefined : `"${text}" is not a valid namespace name (lower-case letters, digits and "-")`;
}
