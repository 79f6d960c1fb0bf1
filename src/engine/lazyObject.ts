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
  /**
   * Where the value of metadata's resourceVersion member is in the text (its quotes included; the
   * last such member of the last metadata, the one JSON.parse keeps), or -1 / absent without one.
   */
  rvStart?: number;
  rvEnd?: number;
}

export class LazyState {
  /** The parsed object, once something asked for it. */
  parsed: KubeObject | undefined = undefined;

  constructor(
    /** The object's JSON text, until it is parsed. */
    public raw: string | undefined,
    readonly fields: LazyFields,
    /** Set when the object came from a LIST that filled in its apiVersion and kind. */
    readonly defaults: ListDefaults | undefined,
  ) {}

  /** The object, parsed on first use. */
  object(): KubeObject {
    if (this.parsed === undefined) {
      this.parsed = this.parse();
      this.raw = undefined;
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
  return new Proxy(new LazyState(raw, fields, defaults), handler) as unknown as T;
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
