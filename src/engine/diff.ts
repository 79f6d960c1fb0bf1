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

/**
 * Structural equality of JSON values (the DeepEqual of decoded objects). Iterative: objects may be
 * nested as deep as the decoder allows (10,000 levels), far past the call stack.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    const rx = x as Record<string, unknown>;
    const ry = y as Record<string, unknown>;
    const kx = Object.keys(rx).filter((k) => rx[k] !== undefined);
    const ky = Object.keys(ry).filter((k) => ry[k] !== undefined);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(ry, k)) return false;
      stack.push([rx[k], ry[k]]);
    }
  }
  return true;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function childPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Change = { path: string; top: string[]; old: unknown; new: unknown };

/**
 * Collects every changed leaf as [path, old, new], depth first in the old object's field order;
 * top-level field names ride along for classification. Iterative, like deepEqual, and each pair
 * of values is looked at once.
 */
function walk(oldObj: unknown, newObj: unknown, out: Change[]): void {
  const stack: [path: string, a: unknown, b: unknown, top: string[]][] = [['', oldObj, newObj, []]];
  while (stack.length > 0) {
    const [path, a, b, top] = stack.pop()!;
    if (a === b) continue;
    if (isRecord(a) && isRecord(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        stack.push([childPath(path, k), a[k], b[k], top.length < 2 ? [...top, k] : top]);
      }
      continue;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = Math.max(a.length, b.length) - 1; i >= 0; i--) stack.push([`${path}[${i}]`, a[i], b[i], top]);
      continue;
    }
    // Different kinds of value, or different leaves (deepEqual settles objects of other shapes).
    if (!deepEqual(a, b)) out.push({ path, top, old: a, new: b });
  }
}

/**
 * Classifies an update: 'identical' (deep-equal), 'resourceVersion' (nothing else differs),
 * 'managedFields' (managedFields changed, possibly with the RV), 'status' (status changed,
 * possibly with RV/managedFields), else 'other'. Secret data/stringData values are never copied.
 */
export function compareUpdate(oldObj: KubeObject, newObj: KubeObject): UpdateComparison {
  const changes: Change[] = [];
  walk(oldObj, newObj, changes);
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
