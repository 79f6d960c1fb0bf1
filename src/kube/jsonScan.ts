/**
 * A validating structural scanner for the JSON the apiserver writes: it checks that a text is one
 * valid JSON value (the grammar JSON.parse accepts) and reads the few fields the engine needs from
 * a Kubernetes object without building the object: kind, apiVersion and metadata's name,
 * namespace and resourceVersion.
 *
 * What it reads is what JSON.parse gives: keys are compared after unescaping (`"n\u0061me"` is
 * `name`), a later duplicate key replaces an earlier one (a second `metadata` replaces the whole
 * first one), and only the object's own members count (a `resourceVersion` inside `spec` or an
 * Event's `involvedObject` is not the object's). Strings are skipped with indexOf; escapes and
 * control characters are checked.
 *
 * It declines (returns undefined) rather than guess: on invalid JSON, on nesting deeper than
 * MAX_SCAN_DEPTH, and on a field of another type than string (or a metadata that is not an
 * object). The caller then takes the JSON.parse path, which gives the exact value or error.
 */
import { detached, newLazyState, setMembers, type LazyState } from '../engine/lazyObject';

/** Nesting the scanner follows (recursively); deeper values are left to JSON.parse. */
export const MAX_SCAN_DEPTH = 256;

/** The JSON punctuation the scanner (and listStream.ts's walk) reads by character code. */
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;

/** A JSON number, anchored where lastIndex points. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** A string's body with escapes, up to and including its closing quote. */
const STRING_BODY = /(?:[^\\"\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
/** The characters before the next control character (matches from lastIndex; stops before one or at the end). */
const NO_CONTROL = /[^\x00-\x1f]*/y;

/**
 * The fields of a Kubernetes object the engine reads (all strings, or absent), in the state its
 * lazy object adopts (lazyObject.ts); the members' offsets count from the object's `{`.
 */
export type ScannedFields = LazyState;

/**
 * One shared copy of each string that recurs across objects (top-level keys, kind, apiVersion,
 * namespace): a cache of thousands of objects holds each once instead of once per object. Each
 * is a flat copy, so it keeps no scanned text alive. Bounded: past MAX_SHARED strings, new ones
 * are no longer shared, nor any longer than MAX_SHARED_LENGTH.
 */
const SHARED = new Map<string, string>();
const MAX_SHARED = 4096;
/** Longer strings are not shared (the table stays small whatever the objects hold). */
const MAX_SHARED_LENGTH = 64;

function shared(s: string): string {
  const c = SHARED.get(s);
  if (c !== undefined) return c;
  if (SHARED.size >= MAX_SHARED || s.length > MAX_SHARED_LENGTH) return s;
  const copy = detached(s);
  SHARED.set(copy, copy);
  return copy;
}

/** A field read with another type than the engine reads it as. */
const NOT_STRING = Symbol('notString');

/** Thrown inside the scanner to decline; never escapes it (listStream.ts catches it too). */
export const DECLINE = new Error('declined');

/**
 * One scan over one text: its position of the next control character is kept between strings.
 * Its steps throw DECLINE; listStream.ts walks a LIST with them as its body streams in.
 */
export class Scan {
  /** Index of the first control character at or after the last looked-up position (Infinity: none). */
  private nextControl = -1;
  /** Index of the first backslash at or after the last looked-up position (Infinity: none). */
  private nextBackslash = -1;

  constructor(readonly s: string) {}

  ws(i: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else return i;
    }
  }

  /** The index just past the string whose opening quote is at i. */
  stringEnd(i: number): number {
    const s = this.s;
    let q = s.indexOf('"', i + 1);
    if (q === -1) throw DECLINE;
    if (this.nextBackslash <= i) {
      const b = s.indexOf('\\', i + 1);
      this.nextBackslash = b === -1 ? Infinity : b;
    }
    if (this.nextBackslash < q) {
      STRING_BODY.lastIndex = i + 1;
      if (!STRING_BODY.test(s)) throw DECLINE;
      return STRING_BODY.lastIndex;
    }
    q++;
    if (this.controlBefore(i + 1, q)) throw DECLINE;
    return q;
  }

  /** Whether s[from, to) holds a control character (not allowed inside a string). */
  private controlBefore(from: number, to: number): boolean {
    if (this.nextControl < from) {
      NO_CONTROL.lastIndex = from;
      NO_CONTROL.test(this.s);
      const at = NO_CONTROL.lastIndex;
      this.nextControl = at === this.s.length ? Infinity : at;
    }
    return this.nextControl < to;
  }

  /**
   * A string member's value or key (its text unescaped), from its opening quote at i to end, never
   * sharing the scanned text's memory: V8 copies a slice shorter than 13 characters, a longer one
   * is copied here. Names and the keys made of them outlive the line in trace events; as slices
   * they kept old lines alive (peak RSS with the recorder ~30–35 MiB higher at 10 000 Pods and
   * 50 000 events; copying the short ones too took ~15 MiB more off it, unexplained, at ~8% of the
   * null sink's CPU, not kept).
   */
  stringValue(i: number, end: number): string {
    const raw = this.s.slice(i + 1, end - 1);
    if (raw.indexOf('\\') !== -1) return JSON.parse(this.s.slice(i, end)) as string;
    return raw.length >= 13 ? detached(raw) : raw;
  }

  /** The index just past the value at i. */
  value(i: number, depth: number): number {
    const s = this.s;
    const c = s.charCodeAt(i);
    if (c === QUOTE) return this.stringEnd(i);
    if (c === LBRACE) return this.object(i, depth + 1, undefined);
    if (c === LBRACKET) return this.array(i, depth + 1);
    if (c === 0x74) return this.literal(i, 'true');
    if (c === 0x66) return this.literal(i, 'false');
    if (c === 0x6e) return this.literal(i, 'null');
    NUMBER.lastIndex = i;
    if (!NUMBER.test(s)) throw DECLINE;
    return NUMBER.lastIndex;
  }

  private literal(i: number, word: string): number {
    if (!this.s.startsWith(word, i)) throw DECLINE;
    return i + word.length;
  }

  array(i: number, depth: number): number {
    if (depth > MAX_SCAN_DEPTH) throw DECLINE;
    const s = this.s;
    i = this.ws(i + 1);
    if (s.charCodeAt(i) === RBRACKET) return i + 1;
    for (;;) {
      i = this.ws(this.value(i, depth));
      const c = s.charCodeAt(i);
      if (c === RBRACKET) return i + 1;
      if (c !== COMMA) throw DECLINE;
      i = this.ws(i + 1);
    }
  }

  /**
   * The index just past the object at i. `member`, when given, is called for each member with
   * where its key's quotes are (keyAt, and keyEnd just past the closing one) and where its value
   * starts, and returns where the value ends (or -1 to have the value skipped). It reads the key
   * with keyIs, memberKey or stringValue before anything else.
   */
  object(i: number, depth: number, member: ((keyAt: number, keyEnd: number, at: number) => number) | undefined): number {
    if (depth > MAX_SCAN_DEPTH) throw DECLINE;
    const s = this.s;
    i = this.ws(i + 1);
    if (s.charCodeAt(i) === RBRACE) return i + 1;
    for (;;) {
      if (s.charCodeAt(i) !== QUOTE) throw DECLINE;
      const keyAt = i;
      const keyEnd = this.stringEnd(i);
      i = this.ws(keyEnd);
      if (s.charCodeAt(i) !== COLON) throw DECLINE;
      i = this.ws(i + 1);
      const end = member ? member(keyAt, keyEnd, i) : -1;
      i = this.ws(end === -1 ? this.value(i, depth) : end);
      const c = s.charCodeAt(i);
      if (c === RBRACE) return i + 1;
      if (c !== COMMA) throw DECLINE;
      i = this.ws(i + 1);
    }
  }

  /**
   * Whether the key just scanned (stringEnd was its last call) is `word` once unescaped, without
   * making a string of it unless it has an escape: nextBackslash is then the first backslash
   * after the key's opening quote.
   */
  keyIs(keyAt: number, keyEnd: number, word: string): boolean {
    if (this.nextBackslash < keyEnd) return this.stringValue(keyAt, keyEnd) === word;
    return keyEnd - keyAt - 2 === word.length && this.s.startsWith(word, keyAt + 1);
  }

  /**
   * The key just scanned as a shared string: the key at the same place in the last object read,
   * when it is the same, else looked up (a Kubernetes object's members come in the same order).
   */
  memberKey(keyAt: number, keyEnd: number, place: number): string {
    const known = place < RECENT_KEYS.length ? RECENT_KEYS[place] : undefined;
    if (known !== undefined && this.keyIs(keyAt, keyEnd, known)) return known;
    const key = shared(this.stringValue(keyAt, keyEnd));
    if (known !== undefined) RECENT_KEYS[place] = key;
    return key;
  }

  /** Where the value stringMember last read ends. */
  memberEnd = 0;

  /** A member read as a string: its unescaped value, or NOT_STRING for another type; memberEnd is where it ends. */
  stringMember(at: number, depth: number): string | typeof NOT_STRING {
    if (this.s.charCodeAt(at) !== QUOTE) {
      this.memberEnd = this.value(at, depth);
      return NOT_STRING;
    }
    const end = this.stringEnd(at);
    this.memberEnd = end;
    return this.stringValue(at, end);
  }

  /**
   * The Kubernetes object at i (an object, at depth `depth`): its end and fields. A field of
   * another type than string (a metadata that is not an object) declines, unless a later
   * duplicate replaces it.
   */
  kubeObject(i: number, depth: number): { end: number; fields: ScannedFields } {
    // The lazy object's state, read into: every field present from the start (one shape), made at
    // its one allocation site (newLazyState), so that V8 pretenures it; nothing else read here outlives the scan.
    const f = newLazyState() as unknown as Reading;
    // Every member, in text order: key, then where its value starts and ends (from i).
    const members: (string | number)[] = [];
    const end = this.object(i, depth + 1, (keyAt, keyEnd, at) => {
      const key = this.memberKey(keyAt, keyEnd, members.length / 3);
      const e = this.kubeMember(f, key, at, depth);
      members.push(key, at - i, e - i);
      return e;
    });
    if (f.hasMetadata === NOT_STRING || f.kind === NOT_STRING || f.apiVersion === NOT_STRING || f.name === NOT_STRING || f.namespace === NOT_STRING || f.resourceVersion === NOT_STRING) throw DECLINE;
    if (f.rvStart >= 0) {
      f.rvStart -= i;
      f.rvEnd -= i;
    }
    const state = f as unknown as LazyState;
    setMembers(state, members);
    return { end, fields: state };
  }

  /** One member of a Kubernetes object: reads it into `f` when the engine needs it; returns where it ends. */
  private kubeMember(f: Reading, key: string, at: number, depth: number): number {
    if (key === 'kind' || key === 'apiVersion') {
      const v = this.stringMember(at, depth + 1);
      if (key === 'kind') f.kind = v === NOT_STRING ? v : shared(v);
      else f.apiVersion = v === NOT_STRING ? v : shared(v);
      return this.memberEnd;
    }
    if (key !== 'metadata') return this.value(at, depth + 1);
    // A later metadata replaces the earlier one whole.
    f.name = f.namespace = f.resourceVersion = undefined;
    f.rvStart = f.rvEnd = -1;
    if (this.s.charCodeAt(at) !== LBRACE) {
      f.hasMetadata = NOT_STRING;
      return this.value(at, depth + 1);
    }
    f.hasMetadata = true;
    return this.object(at, depth + 2, (keyAt, keyEnd, vat) => {
      if (this.keyIs(keyAt, keyEnd, 'name')) f.name = this.stringMember(vat, depth + 2);
      else if (this.keyIs(keyAt, keyEnd, 'namespace')) {
        const v = this.stringMember(vat, depth + 2);
        f.namespace = v === NOT_STRING ? v : shared(v);
      } else if (this.keyIs(keyAt, keyEnd, 'resourceVersion')) {
        f.resourceVersion = this.stringMember(vat, depth + 2);
        f.rvStart = vat;
        f.rvEnd = this.memberEnd;
      } else return -1;
      return this.memberEnd;
    });
  }
}

/** The fields of an object while it is read: a field of another type is NOT_STRING until the end. */
interface Reading {
  hasMetadata: boolean | typeof NOT_STRING;
  kind: string | undefined | typeof NOT_STRING;
  apiVersion: string | undefined | typeof NOT_STRING;
  name: string | undefined | typeof NOT_STRING;
  namespace: string | undefined | typeof NOT_STRING;
  resourceVersion: string | undefined | typeof NOT_STRING;
  /** The span of metadata's (last) resourceVersion value, quotes included (absolute while read, from the object's `{` after); -1 without one. */
  rvStart: number;
  rvEnd: number;
}

/** The top-level keys of the objects read last, by place (memberKey); bounded. */
const RECENT_KEYS: string[] = new Array<string>(32).fill('');

/** What scanObject reads from one object. */
export interface ScannedObject {
  /** Where the object's text ends (just past its closing brace). */
  end: number;
  fields: ScannedFields;
}

/** The object whose `{` is at s[at] (ends before `to`), or undefined when the scanner declines. */
export function scanObject(s: string, at: number, to = s.length): ScannedObject | undefined {
  if (s.charCodeAt(at) !== LBRACE) return undefined;
  try {
    const r = new Scan(s).kubeObject(at, 0);
    return r.end <= to ? r : undefined;
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** Whether s[from, to) is JSON whitespace only. */
function onlySpace(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

/** A watch event line read by scanWatchEvent. */
export interface ScannedEvent {
  /** The event's `type` member, if it has one as a string. */
  type: string | undefined;
  /** Where the object (the last `object` member) starts and ends, and its fields. */
  objectStart: number;
  objectEnd: number;
  fields: ScannedFields;
}

/**
 * The watch event in s[from, to): one JSON object, then only whitespace up to `to`, whose
 * `object` member is an object. Undefined when the text is anything else or the scanner declines.
 */
export function scanWatchEvent(text: string, from: number, to: number): ScannedEvent | undefined {
  if (text.charCodeAt(from) !== LBRACE) return undefined;
  // The line on its own (a slice shares the text's memory), so that no search runs past its end.
  const s = from === 0 && to === text.length ? text : text.slice(from, to);
  const ev = scanEventLine(s);
  if (ev === undefined || from === 0) return ev;
  return { ...ev, objectStart: ev.objectStart + from, objectEnd: ev.objectEnd + from };
}

function scanEventLine(s: string): ScannedEvent | undefined {
  const from = 0;
  const to = s.length;
  try {
    const scan = new Scan(s);
    let type: string | undefined;
    let hasType = false;
    let obj: { start: number; end: number; fields: ScannedFields } | undefined;
    const end = scan.object(from, 1, (keyAt, keyEnd, at) => {
      if (scan.keyIs(keyAt, keyEnd, 'type')) {
        const v = scan.stringMember(at, 1);
        type = v === NOT_STRING ? undefined : v;
        hasType = true;
        return scan.memberEnd;
      }
      if (!scan.keyIs(keyAt, keyEnd, 'object')) return -1;
      const o = scan.kubeObject(at, 1);
      obj = { start: at, end: o.end, fields: o.fields };
      return o.end;
    });
    if (!obj || !hasType || !onlySpace(s, end, to)) return undefined;
    return { type, objectStart: obj.start, objectEnd: obj.end, fields: obj.fields };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** A LIST body read by scanList: its members besides items, and each item's span and fields. */
export interface ScannedList {
  /** The text of each top-level member other than `items` (the last of duplicates), by key. */
  members: Map<string, [number, number]>;
  /** Each item of the last `items` array: its span, and its fields (undefined for `null`). */
  items: { start: number; end: number; fields: ScannedFields | undefined }[];
}

/**
 * The LIST response body s (one JSON object and whitespace): its `items` must be an array of
 * objects or nulls. Undefined when it is anything else or the scanner declines.
 */
export function scanList(s: string): ScannedList | undefined {
  try {
    const scan = new Scan(s);
    const start = scan.ws(0);
    if (s.charCodeAt(start) !== LBRACE) return undefined;
    const members = new Map<string, [number, number]>();
    let items: ScannedList['items'] | undefined;
    const end = scan.object(start, 1, (keyAt, keyEnd, at) => {
      const key = scan.stringValue(keyAt, keyEnd);
      if (key !== 'items') {
        const e = scan.value(at, 1);
        members.delete(key);
        members.set(key, [at, e]);
        return e;
      }
      if (s.charCodeAt(at) !== LBRACKET) throw DECLINE;
      const list: ScannedList['items'] = [];
      let i = scan.ws(at + 1);
      if (s.charCodeAt(i) === RBRACKET) {
        items = list;
        return i + 1;
      }
      for (;;) {
        if (s.charCodeAt(i) === LBRACE) {
          const o = scan.kubeObject(i, 2);
          list.push({ start: i, end: o.end, fields: o.fields });
          i = o.end;
        } else if (s.startsWith('null', i)) {
          list.push({ start: i, end: i + 4, fields: undefined });
          i += 4;
        } else throw DECLINE;
        i = scan.ws(i);
        const c = s.charCodeAt(i);
        if (c === RBRACKET) {
          items = list;
          return i + 1;
        }
        if (c !== COMMA) throw DECLINE;
        i = scan.ws(i + 1);
      }
    });
    if (!items || scan.ws(end) !== s.length) return undefined;
    return { members, items };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}
