/**
 * Lazy objects: a Kubernetes object kept as its JSON text plus the few fields the engine reads
 * (kind, apiVersion, metadata's name, namespace and resourceVersion), parsed only when something
 * reads anything else.
 *
 * To everything outside the engine's accessors (objects.ts) a lazy object is the parsed object:
 * it is a Proxy whose every read, key listing, `in`, write or delete goes to the object JSON.parse
 * makes of the text, parsed once on first use and kept (the text is then dropped, so the parsed
 * object is the only state and a handler that changes it changes what the engine reads). The
 * engine's accessors read the extracted fields while the object is still text.
 */
/** A parsed JSON object (objects.ts's KubeObject is one; not imported, to keep objects.ts → here one-way). */
type KubeObject = Record<string, unknown>;

/** V8 copies a slice shorter than this; a longer one refers to the string it was sliced from. */
const SLICED_MIN_LENGTH = 13;

/** The key under which a lazy object's proxy hands out its state (only the engine's accessors ask). */
export const LAZY_STATE = Symbol('lazyState');

/** apiVersion/kind a LIST puts in front of an item that has neither (decodeList). */
export interface ListDefaults {
  apiVersion: unknown;
  kind: string;
}

/**
 * The fields the engine reads, as the object has them (strings or absent). A scanner's result is
 * a LazyState (newLazyState) whose object is not made yet; `members` is the scanner's record of
 * the top-level members (membersOf reads them back from a state).
 */
export interface LazyFields {
  kind?: string;
  apiVersion?: string;
  hasMetadata: boolean;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  /** Every top-level member in text order, as key, value start, value end (in the text). */
  members?: (string | number)[];
  /** The object's store key, once something asked for it (storeKey). */
  key?: string;
  /**
   * Where the value of metadata's resourceVersion member is in the text (its quotes included; the
   * last such member of the last metadata, the one JSON.parse keeps), or -1 / absent without one.
   */
  rvStart?: number;
  rvEnd?: number;
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * A lazy object's state: the object's text (holder[from, to): a watch line and the object's span
 * in it, or the text alone), the fields the engine reads, its top-level members kept compactly (a
 * shared tuple of keys and the value spans packed in a string), and the parsed object once
 * something asked for it.
 *
 * It is an object literal made in one place (newLazyState), not a class instance: V8 pretenures the
 * objects of an allocation site whose objects survive (allocation-site pretenuring applies to
 * literals, never to `new`), and a cached object's state lives until the object's next update, so
 * it is allocated in the old generation at once and never copied by a scavenge. The scanner makes
 * it (jsonScan.ts) and the lazy object adopts it (docs/BENCHMARKS.md, "What the engine worker's
 * scavenges cost").
 */
export interface LazyState {
  /** The parsed object, once something asked for it. */
  parsed: KubeObject | undefined;
  /** The string holding the object's text at [from, to), until the object is parsed. */
  holder: string | undefined;
  /** -1 until a lazy object adopted the state. */
  from: number;
  to: number;
  /** Set when the object came from a LIST that filled in its apiVersion and kind. */
  defaults: ListDefaults | undefined;
  kind: string | undefined;
  apiVersion: string | undefined;
  hasMetadata: boolean;
  name: string | undefined;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  /** The object's store key, once something asked for it (storeKey). */
  key: string | undefined;
  /** The top-level keys in text order (a shared tuple) when the spans are packed; undefined otherwise. */
  memberKeys: readonly string[] | undefined;
  /** The members' value spans packed (packSpans), or the whole record when they do not fit; undefined: no record. */
  memberSpans: string | (string | number)[] | undefined;
  /**
   * Where the value of metadata's resourceVersion member is in the object's text (from its `{`,
   * quotes included; the last such member of the last metadata, the one JSON.parse keeps), -1
   * without one.
   */
  rvStart: number;
  rvEnd: number;
  /**
   * Where the last update comparison whose new side this object was found its differences, as
   * diffGuess.ts records them: a shared shape (the member, the windows' paths), undefined when
   * none; span0/span1, each window's span from the member's start, packed.
   */
  windows: object | undefined;
  span0: number;
  span1: number;
  /** util.inspect shows the parsed object (it finds this on a proxy's target and calls it on the proxy). */
  [INSPECT]: (this: unknown) => KubeObject;
}

function inspectLazy(this: unknown): KubeObject {
  const self = this as { [LAZY_STATE]?: LazyState } & LazyState;
  return stateObject(self[LAZY_STATE] ?? self);
}

/** A new state with no text yet: every lazy object's state is made here (one allocation site; see LazyState). */
export function newLazyState(): LazyState {
  return {
    parsed: undefined,
    holder: undefined,
    from: -1,
    to: -1,
    defaults: undefined,
    kind: undefined,
    apiVersion: undefined,
    hasMetadata: false,
    name: undefined,
    namespace: undefined,
    resourceVersion: undefined,
    key: undefined,
    memberKeys: undefined,
    memberSpans: undefined,
    rvStart: -1,
    rvEnd: -1,
    windows: undefined,
    span0: 0,
    span1: 0,
    [INSPECT]: inspectLazy,
  };
}

/**
 * The top-level keys of the objects read, one frozen tuple per sequence of keys (the objects of a
 * resource have the same members in the same order): a cached object refers to its tuple instead
 * of holding an array of its own. Bounded: past MAX_KEY_TUPLES sequences, new ones are not shared.
 */
const KEY_TUPLES = new Map<string, readonly string[]>();
const MAX_KEY_TUPLES = 256;
/** The tuple handed out last (the next object most likely has the same keys). */
let lastTuple: readonly string[] = [];

function keyTuple(members: readonly (string | number)[]): readonly string[] {
  const n = members.length / 3;
  const t = lastTuple;
  if (t.length === n) {
    let i = 0;
    while (i < n && t[i] === members[3 * i]) i++;
    if (i === n) return t;
  }
  const keys: string[] = [];
  for (let i = 0; i < members.length; i += 3) keys.push(members[i] as string);
  const id = JSON.stringify(keys);
  let shared = KEY_TUPLES.get(id);
  if (shared === undefined) {
    shared = Object.freeze(keys);
    if (KEY_TUPLES.size < MAX_KEY_TUPLES) KEY_TUPLES.set(id, shared);
  }
  return (lastTuple = shared);
}

/** The value spans of a members record, reused while packing (packSpans). */
const SPANS: number[] = [];
/** Spans are packed one per UTF-16 code unit: up to this offset. */
const MAX_PACKED_OFFSET = 0xffff;

/** The value spans (start, end, …) of a members record as one string of code units; undefined if one does not fit. */
function packSpans(members: readonly (string | number)[]): string | undefined {
  SPANS.length = 0;
  for (let i = 0; i < members.length; i += 3) {
    const end = members[i + 2] as number;
    if (end > MAX_PACKED_OFFSET) return undefined;
    SPANS.push(members[i + 1] as number, end);
  }
  return String.fromCharCode.apply(null, SPANS);
}

/** Keeps a scanner's members record (key, value start, value end, …) in the state, compactly. */
export function setMembers(s: LazyState, members: (string | number)[] | undefined): void {
  const packed = members === undefined ? undefined : packSpans(members);
  s.memberKeys = packed === undefined || members === undefined ? undefined : keyTuple(members);
  s.memberSpans = packed ?? members;
}

/**
 * The records membersOf made last, of the two states it was asked about last: the update
 * comparison asks about the same old and new object several times in a row. A state's members
 * never change once the scanner kept them.
 */
let membersA: LazyState | undefined;
let recordA: (string | number)[] | undefined;
let membersB: LazyState | undefined;
let recordB: (string | number)[] | undefined;

/** The state's members record: key, value start, value end, … in text order (not to be changed by the caller). */
export function membersOf(s: LazyState): (string | number)[] | undefined {
  const spans = s.memberSpans;
  if (typeof spans !== 'string') return spans;
  if (s === membersA) return recordA;
  if (s === membersB) return recordB;
  const keys = s.memberKeys as readonly string[];
  const out: (string | number)[] = new Array<string | number>(3 * keys.length);
  for (let i = 0; i < keys.length; i++) {
    out[3 * i] = keys[i];
    out[3 * i + 1] = spans.charCodeAt(2 * i);
    out[3 * i + 2] = spans.charCodeAt(2 * i + 1);
  }
  membersB = membersA;
  recordB = recordA;
  membersA = s;
  recordA = out;
  return out;
}

/** The object's JSON text, until it is parsed. */
export function rawOf(s: LazyState): string | undefined {
  const h = s.holder;
  if (h === undefined) return undefined;
  return s.from === 0 && s.to === h.length ? h : h.slice(s.from, s.to);
}

/**
 * The store key of an unparsed object (store.ts metaNamespaceKeyFunc: `namespace/name`, or the
 * name), made once. A name long enough to be kept as a slice then becomes a slice of the key: one
 * string for both (making the slice also flattens the key).
 */
export function storeKey(s: LazyState): string {
  if (s.key !== undefined) return s.key;
  const name = s.name ?? '';
  const ns = s.namespace;
  if (!ns) return (s.key = name);
  const key = `${ns}/${name}`;
  if (name.length >= SLICED_MIN_LENGTH) s.name = key.slice(ns.length + 1);
  return (s.key = key);
}

/** The object, parsed on first use (and kept; the text is dropped). */
export function stateObject(s: LazyState): KubeObject {
  if (s.parsed === undefined) {
    s.parsed = parseState(s);
    s.holder = undefined;
  }
  return s.parsed;
}

/** The object as JSON.parse gives it (with the LIST's defaults), without keeping it. */
export function parseState(s: LazyState): KubeObject {
  if (s.parsed !== undefined) return s.parsed;
  const o = JSON.parse(rawOf(s) as string) as KubeObject;
  // A spread, as decodeList writes it: own properties only, `__proto__` stays a plain key.
  return s.defaults ? { apiVersion: s.defaults.apiVersion as string, kind: s.defaults.kind, ...o } : o;
}

const handler: ProxyHandler<LazyState> = {
  get(state, key) {
    if (key === LAZY_STATE) return state;
    return (stateObject(state) as Record<PropertyKey, unknown>)[key];
  },
  set(state, key, value) {
    (stateObject(state) as Record<PropertyKey, unknown>)[key] = value;
    return true;
  },
  has(state, key) {
    return key in stateObject(state);
  },
  deleteProperty(state, key) {
    return delete (stateObject(state) as Record<PropertyKey, unknown>)[key];
  },
  ownKeys(state) {
    return Reflect.ownKeys(stateObject(state));
  },
  getOwnPropertyDescriptor(state, key) {
    return Reflect.getOwnPropertyDescriptor(stateObject(state), key);
  },
  defineProperty(state, key, descriptor) {
    return Reflect.defineProperty(stateObject(state), key, descriptor);
  },
  getPrototypeOf() {
    return Object.prototype;
  },
};

/** The state a lazy object keeps: the scanner's state itself when no lazy object has it yet, else a copy. */
function adopt(fields: LazyFields | LazyState, holder: string, from: number, to: number, defaults: ListDefaults | undefined): LazyState {
  let s = fields as LazyState;
  const given = fields as LazyFields;
  if (s.from !== -1 || (s.memberSpans === undefined && given.members !== undefined)) {
    // Not a fresh scanner state (a copy of one, or fields written by hand): a state of its own.
    s = newLazyState();
    s.kind = fields.kind;
    s.apiVersion = fields.apiVersion;
    s.hasMetadata = fields.hasMetadata;
    s.name = fields.name;
    s.namespace = fields.namespace;
    s.resourceVersion = fields.resourceVersion;
    s.key = fields.key;
    s.rvStart = fields.rvStart ?? -1;
    s.rvEnd = fields.rvEnd ?? -1;
    const own = fields as Partial<LazyState>;
    if (own.memberSpans !== undefined) {
      s.memberKeys = own.memberKeys;
      s.memberSpans = own.memberSpans;
    } else setMembers(s, given.members);
  }
  s.holder = holder;
  s.from = from;
  s.to = to;
  s.defaults = defaults;
  return s;
}

/** A lazy object for the JSON text `raw` of an object whose fields were read by a scanner (its LazyState, adopted). */
export function lazyObject<T extends object = KubeObject>(raw: string, fields: LazyFields | LazyState, defaults?: ListDefaults): T {
  return new Proxy(adopt(fields, raw, 0, raw.length, defaults), handler) as unknown as T;
}

/**
 * A lazy object whose JSON text is holder[from, to) (a watch line and the object's span in it):
 * the holder is kept instead of a slice of it.
 */
export function lazyObjectIn<T extends object = KubeObject>(holder: string, from: number, to: number, fields: LazyFields | LazyState): T {
  return new Proxy(adopt(fields, holder, from, to, undefined), handler) as unknown as T;
}

/**
 * The object lazyStateOf last read, and what it read. The engine asks several times in a row about
 * the same object (its key, resourceVersion, type, whether it is a tombstone), and each read of a
 * proxy's state is a call of its trap; an object's state never changes, so the answer is kept.
 */
let lastAsked: unknown;
let lastState: LazyState | undefined;

/** The state of a lazy object; undefined for any other value. */
export function lazyStateOf(o: unknown): LazyState | undefined {
  if (o === lastAsked) return lastState;
  if (typeof o !== 'object' || o === null) return undefined;
  const s = (o as { [LAZY_STATE]?: LazyState })[LAZY_STATE];
  lastAsked = o;
  lastState = s;
  return s;
}

/** The object itself for a plain object; for a lazy one, its parsed object (parsed now if need be). */
export function plainObject<T extends object>(o: T): T {
  const s = lazyStateOf(o);
  return s ? (stateObject(s) as T) : o;
}

/**
 * A copy of `s` that does not share memory with a larger string it was sliced from (V8 keeps the
 * whole parent of a slice alive): the concatenation is flattened into a new string when sliced.
 */
export function detached(s: string): string {
  return (' ' + s).slice(1);
}
