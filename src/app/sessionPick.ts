/**
 * Which session a command acts on by default, and session titles that tell sessions apart.
 * Free of 'vscode', so it is unit-tested.
 */

/** The title, or the title with " #2", " #3"… when another session already has it. */
export function uniqueTitle(title: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(title)) return title;
  for (let n = 2; ; n++) {
    const candidate = `${title} #${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The candidates with the session on screen first (a quick pick preselects its first item), the rest newest first. */
export function pickOrder<T extends { id: string }>(candidates: readonly T[], shownId: string | undefined): T[] {
  const rest = [...candidates].reverse();
  const shown = rest.findIndex((c) => c.id === shownId);
  if (shown > 0) rest.unshift(...rest.splice(shown, 1));
  return rest;
}

/** The running session added last, if any (sessions in the order added): what revealOnDebug shows. */
export function newestRunning<T extends { live: boolean }>(sessions: readonly T[]): T | undefined {
  for (let i = sessions.length - 1; i >= 0; i--) if (sessions[i].live) return sessions[i];
  return undefined;
}
