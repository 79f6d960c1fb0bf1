/**
 * "Did you mean" for an unknown --resource: the discovered resources whose plural, kind, singular
 * form or short name is within a small edit distance of what was typed, or that contain it.
 */
import type { ApiResource } from '../kube';

const MAX_SUGGESTIONS = 6;

/** Levenshtein distance; names are short, so the plain O(n·m) table is fine. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

function displayName(r: ApiResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** The closest resource names (plural[.group]), best first; empty when nothing is close. */
export function closeResourceNames(resources: readonly ApiResource[], typed: string): string[] {
  // "deploymens.apps" is compared as "deploymens": the group part rarely carries the typo.
  const name = typed.toLowerCase().split('.')[0];
  const allowed = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  const scored: Array<{ name: string; score: number }> = [];
  for (const r of resources) {
    const forms = [r.resource, r.kind.toLowerCase(), r.resource.replace(/e?s$/, ''), ...r.shortNames];
    let best = Math.min(...forms.map((f) => editDistance(name, f)));
    if (best > allowed && name.length >= 3 && forms.some((f) => f.includes(name))) best = allowed;
    if (best <= allowed) scored.push({ name: displayName(r), score: best });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return [...new Set(scored.map((s) => s.name))].slice(0, MAX_SUGGESTIONS);
}
