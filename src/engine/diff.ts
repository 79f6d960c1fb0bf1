/**
 * How an update's old and new objects compare. client-go never does this (update notifications
 * are not filtered by content, spec §4.2); we do it only to show the user what a relist or a
 * resync actually changed, e.g. a flood of updates that differ in nothing but resourceVersion.
 */
import type { FieldChange, UpdateChange } from '../format/events';
import type { KubeObject } from './objects';

export const MAX_FIELD_CHANGES = 20;
export const REDACTED = '«redacted»';

export interface UpdateComparison {
  change: UpdateChange;
  /** Changed leaf paths, oldest-field order, at most MAX_FIELD_CHANGES. */
  diff: FieldChange[];
  /** How many changed paths exist in total (diff may be cut short). */
  total: number;
}

/** Structural equality of JSON values (the DeepEqual of decoded objects). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && deepEqual(ra[k], rb[k]));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function childPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Collects every changed leaf as [path, old, new]; top-level field names ride along for classification. */
function walk(path: string, a: unknown, b: unknown, out: { path: string; top: string[]; old: unknown; new: unknown }[], top: string[]): void {
  if (deepEqual(a, b)) return;
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) walk(childPath(path, k), a[k], b[k], out, top.length < 2 ? [...top, k] : top);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(`${path}[${i}]`, a[i], b[i], out, top);
    return;
  }
  out.push({ path, top, old: a, new: b });
}

/**
 * Classifies an update: 'identical' (deep-equal), 'resourceVersion' (nothing else differs),
 * 'managedFields' (managedFields changed, possibly with the RV), 'status' (status changed,
 * possibly with RV/managedFields), else 'other'. Secret data/stringData values are never copied.
 */
export function compareUpdate(oldObj: KubeObject, newObj: KubeObject): UpdateComparison {
  const changes: { path: string; top: string[]; old: unknown; new: unknown }[] = [];
  walk('', oldObj, newObj, changes, []);
  const secret = oldObj.kind === 'Secret' || newObj.kind === 'Secret';
  const diff = changes.slice(0, MAX_FIELD_CHANGES).map((c): FieldChange => {
    const redact = secret && (c.top[0] === 'data' || c.top[0] === 'stringData');
    const fc: FieldChange = { path: c.path };
    if (c.old !== undefined) fc.old = redact ? REDACTED : c.old;
    if (c.new !== undefined) fc.new = redact ? REDACTED : c.new;
    return fc;
  });
  return { change: classify(changes.map((c) => c.top)), diff, total: changes.length };
}

function classify(tops: string[][]): UpdateChange {
  if (tops.length === 0) return 'identical';
  let rv = false;
  let managed = false;
  let status = false;
  for (const [first, second] of tops) {
    if (first === 'metadata' && second === 'resourceVersion') rv = true;
    else if (first === 'metadata' && second === 'managedFields') managed = true;
    else if (first === 'status') status = true;
    else return 'other';
  }
  if (status) return 'status';
  if (managed) return 'managedFields';
  return rv ? 'resourceVersion' : 'other';
}
