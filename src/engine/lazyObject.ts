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

/** The fields the engine reads, as the object has them (strings or absent). */
export interface LazyFields {
  kind?: string;
  apiVersion?: string;
  hasMetadata: boolean;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  /** Every top-level member in text order, as key, value start, value end (in the text). */
  members?: (string | number)[];
  /** The object's store key, once something asked for it (store.ts keyOfFields). */
  key?: string;
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

/**
 * A lazy object's state: the object's text (a span of a string that may hold more, such as the
 * watch line it came in), the fields the engine reads, and the parsed object once something asked
 * for it. It is also the object's LazyFields (`fields` is the state itself) and keeps its top-level
 * members compactly (a shared key tuple and the spans packed in a string): a cached object is the
 * proxy, this state, its text and a few short strings, so that fewer objects survive each scavenge
 * (docs/BENCHMARKS.md, "What the engine worker's scavenges cost").
 */
export class LazyState implements LazyFields {
  /** The parsed object, once something asked for it. */
  parsed: KubeObject | undefined = undefined;
  /** The string that holds the object's text at [from, to), until the object is parsed. */
  private holder: string | undefined;
  private readonly from: number;
  private readonly to: number;
  kind: string | undefined;
  apiVersion: string | undefined;
  hasMetadata: boolean;
  name: string | undefined;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  /** The object's store key, once something asked for it (storeKey). */
  key: string | undefined;
  /** The top-level keys in text order (a shared tuple), when the spans are packed. */
  private readonly memberKeys: readonly string[] | undefined;
  /** The members' value spans packed (packSpans), or the scanner's record itself when they do not fit. */
  private readonly memberSpans: string | (string | number)[] | undefined;

  constructor(
    holder: string,
    from: number,
    to: number,
    fields: LazyFields,
    /** Set when the object came from a LIST that filled in its apiVersion and kind. */
    readonly defaults: ListDefaults | undefined,
  ) {
    this.holder = holder;
    this.from = from;
    this.to = to;
    this.kind = fields.kind;
    this.apiVersion = fields.apiVersion;
    this.hasMetadata = fields.hasMetadata;
    this.name = fields.name;
    this.namespace = fields.namespace;
    this.resourceVersion = fields.resourceVersion;
    this.key = fields.key;
    const m = fields.members;
    const packed = m === undefined ? undefined : packSpans(m);
    this.memberKeys = packed === undefined || m === undefined ? undefined : keyTuple(m);
    this.memberSpans = packed ?? m;
  }

  /** The object's JSON text, until it is parsed. */
  get raw(): string | undefined {
    const h = this.holder;
    if (h === undefined) return undefined;
    return this.from === 0 && this.to === h.length ? h : h.slice(this.from, this.to);
  }

  /** The fields the engine reads: the state itself. */
  get fields(): LazyFields {
    return this;
  }

  /** Every top-level member in text order, as key, value start, value end (a new array each time). */
  get members(): (string | number)[] | undefined {
    const spans = this.memberSpans;
    const keys = this.memberKeys;
    if (typeof spans !== 'string') return spans;
    if (keys === undefined) return undefined;
    const out: (string | number)[] = [];
    for (let i = 0; i < keys.length; i++) out.push(keys[i], spans.charCodeAt(2 * i), spans.charCodeAt(2 * i + 1));
    return out;
  }

  /**
   * The store key of the object while it is text (store.ts metaNamespaceKeyFunc: `namespace/name`,
   * or the name), made once. A name long enough to be kept as a slice then becomes a slice of the
   * key: one string for both (making the slice also flattens the key).
   */
  storeKey(): string {
    if (this.key !== undefined) return this.key;
    const name = this.name ?? '';
    const ns = this.namespace;
    if (!ns) return (this.key = name);
    const key = `${ns}/${name}`;
    if (name.length >= SLICED_MIN_LENGTH) this.name = key.slice(ns.length + 1);
    return (this.key = key);
  }

  /** The object, parsed on first use. */
  object(): KubeObject {
    if (this.parsed === undefined) {
      this.parsed = this.parse();
      this.holder = undefined;
    }
    return this.parsed;
  }

  /** The object as JSON.parse gives it (with the LIST's defaults), without keeping it. */
  parse(): KubeObject {
    if (this.parsed !== undefined) return this.parsed;
    const o = JSON.parse(this.raw as string) as KubeObject;
    // A spread, as decodeList writes it: own properties only, `__proto__` stays a plain key.
    return this.defaults ? { apiVersion: this.defaults.apiVersion as string, kind: this.defaults.kind, ...o } : o;
  }

/** util.inspect shows the parsed object (it finds this on a proxy's target and calls it on the proxy). */
  [Symbol.for('nodejs.util.inspect.custom')](): KubeObject {
    const state = (this as { [LAZY_STATE]?: LazyState })[LAZY_STATE] ?? this;
    return state.object();
  }
}

const handler: ProxyHandler<LazyState> = {
  get(state, key) {
    if (key === LAZY_STATE) return state;
    return (state.object() as Record<PropertyKey, unknown>)[key];
  },
  set(state, key, value) {
    (state.object() as Record<PropertyKey, unknown>)[key] = value;
    return true;
  },
  has(state, key) {
    return key in state.object();
  },
  deleteProperty(state, key) {
    return delete (state.object() as Record<PropertyKey, unknown>)[key];
  },
  ownKeys(state) {
    return Reflect.ownKeys(state.object());
  },
  getOwnPropertyDescriptor(state, key) {
    return Reflect.getOwnPropertyDescriptor(state.object(), key);
  },
  defineProperty(state, key, descriptor) {
    return Reflect.defineProperty(state.object(), key, descriptor);
  },
  getPrototypeOf() {
    return Object.prototype;
  },
};

/** A lazy object for the JSON text `raw` of an object whose fields were read by a scanner. */
export function lazyObject<T extends object = KubeObject>(raw: string, fields: LazyFields, defaults?: ListDefaults): T {
  return new Proxy(new LazyState(raw, 0, raw.length, fields, defaults), handler) as unknown as T;
}

/**
 * A lazy object whose JSON text is holder[from, to) (a watch line and the object's span in it):
 * the holder is kept instead of a slice of it.
 */
export function lazyObjectIn<T extends object = KubeObject>(holder: string, from: number, to: number, fields: LazyFields): T {
  return new Proxy(new LazyState(holder, from, to, fields, undefined), handler) as unknown as T;
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
  return s ? (s.object() as T) : o;
}

/**
 * A copy of `s` that does not share memory with a larger string it was sliced from (V8 keeps the
 * whole parent of a slice alive): the concatenation is flattened into a new string when sliced.
 */
export function detached(s: string): string {
  return (' ' + s).slice(1);
}
