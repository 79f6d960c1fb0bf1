/**
 * Label and field selectors as the API server parses them, enough for the sandbox: label
 * selectors with `=`, `==`, `!=`, `in`, `notin`, `key` and `!key`; field selectors on
 * metadata.name and metadata.namespace with `=`, `==`, `!=`. A selector that cannot be parsed
 * is a 400 BadRequest, like the real server, so clients see their typo instead of an empty list.
 */
import type { KubeObject } from '../../engine/objects';

export type Selector = (obj: KubeObject) => boolean;

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

const matchAll: Selector = () => true;

/** Splits on commas that are not inside a `(…)` value set. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') terms.push(current.trim());
  return terms;
}

function labelsOf(obj: KubeObject): Record<string, string> {
  const labels = obj.metadata?.labels;
  return labels && typeof labels === 'object' ? (labels as Record<string, string>) : {};
}

function parseLabelTerm(term: string): Selector {
  const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set) {
    const [, key, op, list] = set;
    const values = new Set(list.split(',').map((v) => v.trim()).filter((v) => v !== ''));
    return op === 'in'
      ? (o) => values.has(labelsOf(o)[key])
      : (o) => !(key in labelsOf(o)) || !values.has(labelsOf(o)[key]);
  }
  const cmp = /^([\w./-]+)\s*(==|!=|=)\s*([\w.-]*)$/.exec(term);
  if (cmp) {
    const [, key, op, value] = cmp;
    return op === '!=' ? (o) => labelsOf(o)[key] !== value : (o) => labelsOf(o)[key] === value;
  }
  const exists = /^(!?)([\w./-]+)$/.exec(term);
  if (exists) {
    const [, negate, key] = exists;
    return negate ? (o) => !(key in labelsOf(o)) : (o) => key in labelsOf(o);
  }
  throw new SelectorError(`unable to parse requirement: found '${term}', expected: key, !key, key=value, key!=value, key in (…), key notin (…)`);
}

export function parseLabelSelector(text: string | null): Selector {
  if (!text) return matchAll;
  const terms = splitTerms(text).map(parseLabelTerm);
  return (o) => terms.every((t) => t(o));
}

/** The field labels every resource supports (the server's DefaultClusterScopedAttr/NamespaceScopedAttr). */
const FIELD_GETTERS: Record<string, (o: KubeObject) => string> = {
  'metadata.name': (o) => o.metadata?.name ?? '',
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

function parseFieldTerm(term: string): Selector {
  const m = /^([\w.]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
  if (!m) throw new SelectorError(`invalid selector: '${term}'; can't understand '${term}'`);
  const [, field, op, value] = m;
  const get = FIELD_GETTERS[field];
  if (!get) throw new SelectorError(`field label not supported: ${field}`);
  return op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value;
}

export function parseFieldSelector(text: string | null): Selector {
  if (!text) return matchAll;
  const terms = splitTerms(text).map(parseFieldTerm);
  return (o) => terms.every((t) => t(o));
}
