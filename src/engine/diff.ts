/**
 * How an update's old and new objects compare. client-go never does this (update notifications
 * are not filtered by content, spec §4.2); we do it only to show the user what a relist or a
 * resync actually changed, e.g. a flood of updates that differ in nothing but resourceVersion.
 */
import type { FieldChange, UpdateChange } from '../format/events';
import { PathNode, ROOT_PATH } from './diffPaths';
import { lazyStateOf, membersOf, parseState, rawOf, type LazyState } from './lazyObject';
import type { KubeObject } from './objects';
import { diffWindow } from './textDiff';
import { deepEqual } from './deepEqual';
export { deepEqual };
import { guessSpans, guessed, recordCopy, recordEnd, recordMember, recordMemberEnd, recordStart, recordWindow, shapeFor, windowEnd, windowStart } from './diffGuess';

/**
 * Two lazy objects (their states), neither parsed yet, of the same JSON text (and LIST defaults):
 * they parse to deep-equal objects. False may be a false alarm (the caller then compares the
 * members and finds no change): two resourceVersions the scanner read differently answer it
 * without reading the texts (one text read twice gives one resourceVersion).
 */
function sameText(x: LazyState | undefined, y: LazyState | undefined): boolean {
  if (x === undefined || y === undefined || x.holder === undefined || y.holder === undefined) return false;
  if (x.resourceVersion !== y.resourceVersion) return false;
  if (x.to - x.from !== y.to - y.from || rawOf(x) !== rawOf(y)) return false;
  const dx = x.defaults;
  const dy = y.defaults;
  return dx === dy || (dx !== undefined && dy !== undefined && dx.kind === dy.kind && dx.apiVersion === dy.apiVersion);
}

function parsedForCompare(o: KubeObject, s: LazyState | undefined): unknown {
  return s ? parseState(s) : o;
}

/** Stands, on both sides, for a top-level member whose text is the same in both objects (the walk skips a === b). */
const SAME_TEXT = Object.freeze({});

/**
 * Both objects for the walk, with every top-level member whose value has the same text in both
 * replaced by SAME_TEXT on both sides, so only the members that differ are parsed. Each object
 * has JSON.parse's keys in JSON.parse's order (a repeated key keeps its first place and its last
 * value) and the LIST defaults in front, so the walk finds the same changes in the same order as
 * on the parsed objects. Undefined when either is not an unparsed lazy object with its members.
 */
function partialPair(a: LazyState | undefined, b: LazyState | undefined): [unknown, unknown] | undefined {
  const ra = a === undefined ? undefined : rawOf(a);
  const rb = b === undefined ? undefined : rawOf(b);
  if (a === undefined || b === undefined || ra === undefined || rb === undefined) return undefined;
  const ma = lastValues(ra, membersOf(a));
  const mb = lastValues(rb, membersOf(b));
  if (ma === undefined || mb === undefined) return undefined;
  return [partialObject(a, ma, mb), partialObject(b, mb, ma)];
}

/** Each key's last value text (key order: first occurrence); undefined without members or with a `__proto__` key. */
function lastValues(raw: string, members: (string | number)[] | undefined): Map<string, string> | undefined {
  if (members === undefined) return undefined;
  const m = new Map<string, string>();
  for (let i = 0; i < members.length; i += 3) {
    const key = members[i] as string;
    if (key === '__proto__') return undefined;
    m.set(key, raw.slice(members[i + 1] as number, members[i + 2] as number));
  }
  return m;
}

function partialObject(s: LazyState, own: Map<string, string>, other: Map<string, string>): Record<string, unknown> {
  const o: Record<string, unknown> = s.defaults ? { apiVersion: s.defaults.apiVersion, kind: s.defaults.kind } : {};
  for (const [key, text] of own) o[key] = other.get(key) === text ? SAME_TEXT : JSON.parse(text);
  return o;
}

/** An object's top-level members as the walk sees them: key, the text holding the value, and the value's span in it. */
interface TopMembers {
  keys: string[];
  texts: string[];
  starts: number[];
  ends: number[];
}

/**
 * The top-level members of an unparsed lazy object in JSON.parse's order, the LIST defaults (as
 * JSON texts) in front. Undefined when that order is not the text's (a key starting with a digit,
 * which JSON.parse puts first) or a key is repeated (JSON.parse keeps its first place and last value).
 */
function topMembers(s: LazyState): TopMembers | undefined {
  const m = membersOf(s);
  const raw = rawOf(s);
  if (m === undefined || raw === undefined) return undefined;
  const out: TopMembers = { keys: [], texts: [], starts: [], ends: [] };
  const add = (key: string, text: string, start: number, end: number): boolean => {
    const c = key.charCodeAt(0);
    if ((c >= 0x30 && c <= 0x39) || out.keys.includes(key)) return false;
    out.keys.push(key);
    out.texts.push(text);
    out.starts.push(start);
    out.ends.push(end);
    return true;
  };
  if (s.defaults) {
    const apiVersion = JSON.stringify(s.defaults.apiVersion);
    const kind = JSON.stringify(s.defaults.kind);
    if (apiVersion === undefined || !add('apiVersion', apiVersion, 0, apiVersion.length) || !add('kind', kind, 0, kind.length)) return undefined;
  }
  for (let i = 0; i < m.length; i += 3) if (!add(m[i] as string, raw, m[i + 1] as number, m[i + 2] as number)) return undefined;
  return out;
}

/**
 * The changes of two unparsed lazy objects found from their texts: both need the same top-level
 * keys (topMembers; the walk then goes in the old object's order); of each member whose text
 * differs, only the smallest value around the differences is parsed and walked (textDiff.ts).
 * The changes and their order are the walk's on the parsed objects. False when it declines (out
 * is then empty) and the caller compares parsed values.
 */
function textChanges(a: LazyState | undefined, b: LazyState | undefined, out: Change[]): boolean {
  if (a?.holder === undefined || b?.holder === undefined) return false;
  recordStart();
  const done = a.defaults === undefined && b.defaults === undefined ? ownMemberChanges(a, b, out) : listedMemberChanges(a, b, out);
  // Where the differences were, for b's next comparison as the old side (diffGuess.ts).
  recordEnd(b, done);
  if (!done) out.length = 0;
  return done;
}

/** textChanges of two objects without LIST defaults: their members straight from the scanner's record. */
function ownMemberChanges(a: LazyState, b: LazyState, out: Change[]): boolean {
  const keys = a.memberKeys;
  const pa = a.memberSpans;
  const pb = b.memberSpans;
  if (keys !== undefined && keys === b.memberKeys && typeof pa === 'string' && typeof pb === 'string') return packedMemberChanges(a, b, keys, pa, pb, out);
  const ma = membersOf(a);
  const mb = membersOf(b);
  if (ma === undefined || mb === undefined || ma.length !== mb.length || !plainKeys(ma)) return false;
  // The strings holding the texts (a watch line), and where each text starts in it: no slice made.
  const ra = a.holder as string;
  const rb = b.holder as string;
  const fa = a.from;
  const fb = b.from;
  for (let i = 0; i < ma.length; i += 3) {
    const key = ma[i] as string;
    let j = i;
    if (mb[j] !== key) {
      j = mb.indexOf(key);
      if (j < 0 || j % 3 !== 0) return false;
    }
    const as = fa + (ma[i + 1] as number);
    const ae = fa + (ma[i + 2] as number);
    const bs = fb + (mb[j + 1] as number);
    const be = fb + (mb[j + 2] as number);
    if (key === 'metadata' && resourceVersionOnly(a, ra, fa, as, ae, b, rb, fb, bs, be, out)) continue;
    if (!memberChanges(key, ra, as, ae, rb, bs, be, out, a)) return false;
  }
  return true;
}

/**
 * ownMemberChanges of two objects whose members are kept packed with one shared tuple of keys
 * (lazyObject.ts: the same keys in the same order): the same walk read from the packed spans (each
 * member's start and end, from the object's start, are the code units 2i and 2i + 1), without
 * making either members record.
 */
function packedMemberChanges(a: LazyState, b: LazyState, keys: readonly string[], pa: string, pb: string, out: Change[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    const c = keys[i].charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) return false;
    for (let k = 0; k < i; k++) if (keys[k] === keys[i]) return false;
  }
  const ra = a.holder as string;
  const rb = b.holder as string;
  const fa = a.from;
  const fb = b.from;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const as = fa + pa.charCodeAt(2 * i);
    const ae = fa + pa.charCodeAt(2 * i + 1);
    const bs = fb + pb.charCodeAt(2 * i);
    const be = fb + pb.charCodeAt(2 * i + 1);
    if (key === 'metadata' && resourceVersionOnly(a, ra, fa, as, ae, b, rb, fb, bs, be, out)) continue;
    if (!memberChanges(key, ra, as, ae, rb, bs, be, out, a)) return false;
  }
  return true;
}

/** The path of metadata.resourceVersion. */
const RV_PATH = ROOT_PATH.child('metadata').child('resourceVersion');

/**
 * The changes of the metadata members ta[as, ae) and tb[bs, be), settled from the scanner's record
 * of where each one's resourceVersion value is (LazyState.rvStart/rvEnd, from the object's start,
 * which is at oa in ta and ob in tb): when the texts are the same outside those two values,
 * JSON.parse reads both alike but for that member, and the value it keeps is the one the span
 * holds (the last resourceVersion of the metadata, a string the scanner decoded into
 * resourceVersion). So the one change, if any, is that of the two strings, which is what the walk
 * of the parsed members finds. False when a span is unknown or the texts differ elsewhere (the
 * caller then compares the members' texts).
 */
function resourceVersionOnly(a: LazyState, ta: string, oa: number, as: number, ae: number, b: LazyState, tb: string, ob: number, bs: number, be: number, out: Change[]): boolean {
  if (a.rvStart < 0 || b.rvStart < 0) return false;
  const sa = oa + a.rvStart;
  const sb = ob + b.rvStart;
  const ea = oa + a.rvEnd;
  const eb = ob + b.rvEnd;
  if (sa < as || sb < bs || ea > ae || eb > be) return false;
  if (sa - as !== sb - bs || ae - ea !== be - eb) return false;
  if (ta.slice(as, sa) !== tb.slice(bs, sb) || ta.slice(ea, ae) !== tb.slice(eb, be)) return false;
  const old = a.resourceVersion;
  const now = b.resourceVersion;
  if (old === undefined || now === undefined) return false;
  if (old !== now) out.push({ at: RV_PATH, old, new: now });
  return true;
}

/** Whether the keys of a members record (key, start, end, ...) are in JSON.parse's order and none repeats. */
function plainKeys(members: (string | number)[]): boolean {
  for (let i = 0; i < members.length; i += 3) {
    const key = members[i] as string;
    const c = key.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) return false;
    for (let k = 0; k < i; k += 3) if (members[k] === key) return false;
  }
  return true;
}

/** textChanges when either object came from a LIST with defaults (topMembers puts them in front). */
function listedMemberChanges(a: LazyState, b: LazyState, out: Change[]): boolean {
  const ma = topMembers(a);
  const mb = ma && topMembers(b);
  if (ma === undefined || mb === undefined || ma.keys.length !== mb.keys.length) return false;
  for (let k = 0; k < ma.keys.length; k++) {
    const key = ma.keys[k];
    const m = mb.keys[k] === key ? k : mb.keys.indexOf(key);
    if (m < 0) return false;
    // metadata is never a LIST default: its text is the object's.
    if (key === 'metadata' && resourceVersionOnly(a, ma.texts[k], 0, ma.starts[k], ma.ends[k], b, mb.texts[m], 0, mb.starts[m], mb.ends[m], out)) continue;
    if (!memberChanges(key, ma.texts[k], ma.starts[k], ma.ends[k], mb.texts[m], mb.starts[m], mb.ends[m], out, a)) return false;
  }
  return true;
}

/**
 * The changes of one top-level member, a[as, ae) against b[bs, be), into out; false when it
 * declines. sa: the old object's state, whose record of where its last comparison found
 * differences (diffGuess.ts) is tried before diffWindow; the windows used are recorded for the
 * new object.
 */
function memberChanges(key: string, a: string, as: number, ae: number, b: string, bs: number, be: number, out: Change[], sa: LazyState): boolean {
  const shape = shapeFor(sa, key);
  if (ae - as === be - bs && a.slice(as, ae) === b.slice(bs, be)) {
    if (shape !== undefined) recordCopy(sa, shape);
    return true;
  }
  try {
    if (shape !== undefined && guessSpans(sa, shape, a, as, ae, b, bs, be)) {
      recordMember(key, shape.second === undefined ? 1 : 2);
      walkRecursive(windowValue(a, as + windowStart(sa, 0), as + windowEnd(sa, 0)), windowValue(b, guessed.start0, guessed.end0), shape.first, [], out);
      recordWindow(shape.first, guessed.start0 - bs, guessed.end0 - bs);
      if (shape.second !== undefined) {
        walkRecursive(windowValue(a, as + windowStart(sa, 1), as + windowEnd(sa, 1)), windowValue(b, guessed.start1, guessed.end1), shape.second, [], out);
        recordWindow(shape.second, guessed.start1 - bs, guessed.end1 - bs);
      }
      recordMemberEnd();
      return true;
    }
    const windows = diffWindow(a, as, ae, b, bs, be);
    if (windows === undefined) return false;
    const member = ROOT_PATH.child(key);
    recordMember(key, windows.length);
    for (const w of windows) {
      const node = member.below(w.keys);
      walkRecursive(windowValue(a, w.oldStart, w.oldEnd), windowValue(b, w.newStart, w.newEnd), node, [], out);
      recordWindow(node, w.newStart - bs, w.newEnd - bs);
    }
    recordMemberEnd();
  } catch {
    return false; // nested past the recursive walk's limit (TOO_DEEP)
  }
  return true;
}

/**
 * The value of the JSON text s[start, end): a short string without escapes is its characters
 * (sliced: a slice that short is a copy, so it does not keep s alive), anything else JSON.parse's.
 * A resourceVersion is such a string, in every update.
 */
function windowValue(s: string, start: number, end: number): unknown {
  if (end - start <= SHORT_STRING + 2 && s.charCodeAt(start) === 0x22) {
    const inner = s.slice(start + 1, end - 1);
    if (!inner.includes('\\')) return inner;
  }
  return JSON.parse(s.slice(start, end));
}

/** Below this many characters V8 copies a slice instead of pointing into its parent (SlicedString::kMinLength). */
const SHORT_STRING = 12;

export const MAX_FIELD_CHANGES = 20;
export const REDACTED = '«redacted»';

export interface UpdateComparison {
  change: UpdateChange;
  /** Changed leaf paths, oldest-field order, at most MAX_FIELD_CHANGES. */
  diff: FieldChange[];
  /** How many changed paths exist in total (diff may be cut short). */
  total: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A changed leaf: its path (with the first two object keys on the way, which classify it) and both values. */
type Change = { at: PathNode; old: unknown; new: unknown };

/**
 * A pair of containers being compared: their child keys (the old object's keys, then the new
 * one's that the old lacks; undefined for arrays, whose children are the indices below `length`)
 * and the next child to look at. `key` is this pair's own key in its parent.
 */
interface Pair {
  parent: Pair | undefined;
  key: string | number;
  a: Record<string, unknown> | unknown[];
  b: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  length: number;
  next: number;
}

function pairOf(parent: Pair | undefined, key: string | number, a: unknown, b: unknown): Pair | undefined {
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    for (const k in b) if (!Object.prototype.hasOwnProperty.call(a, k)) keys.push(k);
    return { parent, key, a, b, keys, length: keys.length, next: 0 };
  }
  if (Array.isArray(a) && Array.isArray(b)) return { parent, key, a, b, keys: undefined, length: Math.max(a.length, b.length), next: 0 };
  return undefined;
}

/** The change at `key` below `parent`. */
function changeAt(parent: Pair | undefined, key: string | number, old: unknown, now: unknown): Change {
  const keys: (string | number)[] = [key];
  for (let p = parent; p?.parent !== undefined; p = p.parent) keys.push(p.key);
  return { at: ROOT_PATH.below(keys.reverse()), old, new: now };
}

/** Nesting the recursive walk goes into before it gives way to the iterative one. */
const RECURSION_LIMIT = 200;
const TOO_DEEP = new Error('nested deeper than RECURSION_LIMIT');

/**
 * Collects every changed leaf as [path, old, new], depth first in the old object's field order;
 * top-level field names ride along for classification. Each pair of values is looked at once,
 * and a path is spelled out only for a change. Objects of ordinary depth take the recursive walk
 * (no per-container bookkeeping); deeper ones (the decoder allows 10,000 levels) the iterative
 * one, which gives the same changes in the same order.
 */
function walk(oldObj: unknown, newObj: unknown, out: Change[]): void {
  try {
    walkRecursive(oldObj, newObj, ROOT_PATH, [], out);
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
    out.length = 0;
    walkIterative(oldObj, newObj, out);
  }
}

/**
 * One pair of values at the path `keys` below `base` (keys kept as a stack: pushed and popped
 * around each child; the path is looked up only for a change).
 */
function walkRecursive(a: unknown, b: unknown, base: PathNode, keys: (string | number)[], out: Change[]): void {
  if (a === b) return;
  if (isRecord(a) && isRecord(b)) {
    if (keys.length >= RECURSION_LIMIT) throw TOO_DEEP;
    for (const k in a) {
      keys.push(k);
      walkRecursive(a[k], b[k], base, keys, out);
      keys.pop();
    }
    for (const k in b) {
      if (Object.prototype.hasOwnProperty.call(a, k)) continue;
      keys.push(k);
      walkRecursive(undefined, b[k], base, keys, out);
      keys.pop();
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (keys.length >= RECURSION_LIMIT) throw TOO_DEEP;
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      keys.push(i);
      walkRecursive(a[i], b[i], base, keys, out);
      keys.pop();
    }
    return;
  }
  // Different leaves, or different kinds of value (an object against an array, a leaf or nothing):
  // never deep-equal, as a !== b and they are not two objects or two arrays.
  out.push({ at: base.below(keys), old: a, new: b });
}

function walkIterative(oldObj: unknown, newObj: unknown, out: Change[]): void {
  if (oldObj === newObj) return;
  const root = pairOf(undefined, '', oldObj, newObj);
  if (!root) {
    out.push({ at: ROOT_PATH, old: oldObj, new: newObj });
    return;
  }
  const stack: Pair[] = [root];
  while (stack.length > 0) {
    const p = stack[stack.length - 1];
    if (p.next >= p.length) {
      stack.pop();
      continue;
    }
    const i = p.next++;
    let key: string | number;
    let a: unknown;
    let b: unknown;
    if (p.keys === undefined) {
      key = i;
      a = (p.a as unknown[])[i];
      b = (p.b as unknown[])[i];
    } else {
      key = p.keys[i];
      a = (p.a as Record<string, unknown>)[key];
      b = (p.b as Record<string, unknown>)[key];
    }
    if (a === b) continue;
    const child = pairOf(p, key, a, b);
    // Different kinds of value, or different leaves (deepEqual settles objects of other shapes).
    if (child) stack.push(child);
    else if (!deepEqual(a, b)) out.push(changeAt(p, key, a, b));
  }
}

/**
 * Classifies an update: 'identical' (deep-equal), 'resourceVersion' (nothing else differs),
 * 'managedFields' (managedFields changed, possibly with the RV), 'status' (status changed,
 * possibly with RV/managedFields), else 'other'. Secret data/stringData values are never copied.
 * `a` and `b` are lazyStateOf(oldObj) and lazyStateOf(newObj), when the caller has them.
 */
export function compareUpdate(oldObj: KubeObject, newObj: KubeObject, a = lazyStateOf(oldObj), b = lazyStateOf(newObj)): UpdateComparison {
  if (sameText(a, b)) return { change: 'identical', diff: [], total: 0 };
  const changes: Change[] = [];
  // Lazy objects are compared from their texts when they have the same shape, else parsed for the
  // walk (only the members that differ), without keeping parsed trees in the cache.
  if (!textChanges(a, b, changes)) {
    const pair = partialPair(a, b);
    if (pair) walk(pair[0], pair[1], changes);
    else walk(parsedForCompare(oldObj, a), parsedForCompare(newObj, b), changes);
  }
  const secret = kindOf(oldObj, a) === 'Secret' || kindOf(newObj, b) === 'Secret';
  // Sized once and each change one literal: the trace keeps these, and an array grown by push or
  // an object given fields after its literal carries spare slots or a second store.
  const n = Math.min(changes.length, MAX_FIELD_CHANGES);
  const diff: FieldChange[] = new Array<FieldChange>(n);
  for (let i = 0; i < n; i++) {
    const c = changes[i];
    const redact = secret && (c.at.first === 'data' || c.at.first === 'stringData');
    diff[i] = fieldChange(c.at.path, redact ? redacted(c.old) : c.old, redact ? redacted(c.new) : c.new);
  }
  return { change: classify(changes), diff, total: changes.length };
}

/** REDACTED in place of a value, nothing in place of nothing. */
function redacted(v: unknown): unknown {
  return v === undefined ? undefined : REDACTED;
}

/** { path, old?, new? }, an absent side left out (not undefined). */
function fieldChange(path: string, old: unknown, now: unknown): FieldChange {
  if (old === undefined) return now === undefined ? { path } : { path, new: now };
  return now === undefined ? { path, old } : { path, old, new: now };
}

/** objects.ts's typeField(o, 'kind'), with the lazy state already at hand (the comparison parses neither object into it). */
function kindOf(o: KubeObject, s: LazyState | undefined): string | undefined {
  return s !== undefined && s.parsed === undefined ? s.kind : o.kind;
}

function classify(changes: readonly Change[]): UpdateChange {
  if (changes.length === 0) return 'identical';
  let rv = false;
  let managed = false;
  let status = false;
  for (const { at } of changes) {
    const first = at.first;
    const second = at.second;
    if (first === 'metadata' && second === 'resourceVersion') rv = true;
    else if (first === 'metadata' && second === 'managedFields') managed = true;
    else if (first === 'status') status = true;
    else return 'other';
  }
  if (status) return 'status';
  if (managed) return 'managedFields';
  return rv ? 'resourceVersion' : 'other';
}
