/**
 * What the slots of a packed event mean (eventChunk.ts holds them): the packed types and their
 * fields, each field's kind, and how each kind's value becomes a 32-bit slot value and back
 * (see eventChunk.ts's file comment for the layout).
 */
export const NUM = 0;
export const BOOL = 1;
export const STR = 2;
export const DELTAS = 3;
export const JSON_TEXT = 4;
export type Kind = typeof NUM | typeof BOOL | typeof STR | typeof DELTAS | typeof JSON_TEXT;

/** The packed types and their fields (besides type and t); at most 30 fields each (the mask's bits). */
const SCHEMAS: readonly (readonly [type: string, fields: readonly (readonly [string, Kind])[]])[] = [
  ['watch.event', [['eventType', STR], ['key', STR], ['rv', STR], ['accepted', BOOL], ['skipped', STR], ['initialEventsEnd', BOOL]]],
  ['rv', [['rv', STR], ['source', STR]]],
  [
    'fifo.enqueue',
    [['key', STR], ['delta', STR], ['rv', STR], ['depthKeys', NUM], ['depthDeltas', NUM], ['tombstone', STR], ['objects', NUM]],
  ],
  ['fifo.pop', [['key', STR], ['deltas', DELTAS], ['isInInitialList', BOOL], ['depthKeys', NUM], ['depthDeltas', NUM]]],
  ['fifo.dedup', [['key', STR], ['kept', STR]]],
  [
    'distribute',
    [['op', STR], ['key', STR], ['isSync', BOOL], ['delivered', NUM], ['skipped', NUM], ['change', STR], ['diff', JSON_TEXT], ['oldRv', STR], ['rv', STR]],
  ],
  [
    'notify',
    [
      ['handler', STR], ['op', STR], ['key', STR], ['rv', STR], ['oldRv', STR], ['isSync', BOOL], ['initialList', BOOL],
      ['tombstone', BOOL], ['change', STR], ['pending', NUM],
    ],
  ],
  ['resync.check', [['handler', STR], ['due', BOOL], ['nextResyncMs', NUM]]],
  ['resync.timer', [['shouldResync', BOOL]]],
];

/** A packed type's code and its fields' places in the values EventWindow.pushValues takes. */
export interface PackedLayout {
  readonly code: number;
  readonly size: number;
  readonly at: Readonly<Record<string, number>>;
}

/** The layout of a packed type (throws for a type that is not packed). */
export function packedLayout(type: string): PackedLayout {
  const code = SCHEMAS.findIndex(([t]) => t === type);
  if (code < 0) throw new Error(`${type} is not a packed type`);
  const fields = SCHEMAS[code][1];
  return { code, size: fields.length, at: Object.fromEntries(fields.map(([name], i) => [name, i])) };
}

/** The first bit of an event mask that marks a wide field (so a type has at most WIDE_BIT fields). */
export const WIDE_BIT = 15;
for (const [type, fields] of SCHEMAS) if (fields.length > WIDE_BIT) throw new Error(`${type}: more than ${WIDE_BIT} fields to pack`);
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Whether x is its own slot: an int32 that is not -0. */
export function narrow(x: number): boolean {
  return Number.isInteger(x) && x >= INT32_MIN && x <= INT32_MAX && !Object.is(x, -0);
}

/** The type code of an event kept as an object. */
export const OBJECT = 255;
export const CODES = new Map<string, number>(SCHEMAS.map(([type], i) => [type, i]));
export const NAMES = SCHEMAS.map(([, fields]) => fields.map(([name]) => name));
export const KINDS = SCHEMAS.map(([, fields]) => fields.map(([, kind]) => kind));
export const TYPES = SCHEMAS.map(([type]) => type);
/**
 * Each string field's slot in a chunk's cache of the last string it interned: fields named
 * `key` share one (an object's key comes in several events in a row), every other field has its own.
 */
export const CACHE_SLOTS = (() => {
  let next = 1;
  return SCHEMAS.map(([, fields]) => fields.map(([name]) => (name === 'key' ? 0 : next++)));
})();
export const CACHE_SIZE = Math.max(...CACHE_SLOTS.flat()) + 1;

/** The delta types a fifo.pop lists, as base-9 digits 1–8 (at most 16 of them fit a double exactly). */
const DELTA_NAMES = ['', 'Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'ReplacedAll', 'SyncAll', 'Bookmark'];
const DELTA_CODES = new Map<unknown, number>(DELTA_NAMES.map((d, i) => [d, i]));
DELTA_CODES.delete('');

/** The number a canonical non-negative integer string below 10^15 spells, else -1. */
export function integerOf(s: string): number {
  const n = s.length;
  if (n === 0 || n > 15 || (n > 1 && s.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Base-9 digits of the delta list (most significant first), or -1 when it does not fit. */
export function deltasCode(v: unknown): number {
  if (!Array.isArray(v) || v.length === 0 || v.length > 16) return -1;
  let code = 0;
  for (let i = 0; i < v.length; i++) {
    const d = DELTA_CODES.get(v[i]);
    if (d === undefined) return -1;
    code = code * 9 + d;
  }
  return code;
}

export function deltasOf(code: number): string[] {
  const out: string[] = [];
  for (let c = code; c > 0; c = Math.floor(c / 9)) out.push(DELTA_NAMES[c % 9]);
  return out.reverse();
}

/** Whether a packed type has a field kept as JSON text. */
export const HAS_TEXT = KINDS.map((kinds) => kinds.includes(JSON_TEXT));
/** Where an object read for findings keeps its fields' JSON texts. */
export const TEXTS = Symbol('texts');
/** The prototype of the objects read for findings: a getter per JSON-text field that parses it. */
export const FOR_FINDINGS: object = Object.create(Object.prototype);
for (const name of new Set(SCHEMAS.flatMap(([, fields]) => fields.filter(([, kind]) => kind === JSON_TEXT).map(([n]) => n)))) {
  Object.defineProperty(FOR_FINDINGS, name, {
    get(this: { [TEXTS]?: Record<string, string> }) {
      const text = this[TEXTS]?.[name];
      return text === undefined ? undefined : JSON.parse(text);
    },
  });
}

export function keyCount(o: object): number {
  let n = 0;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- only counted
  for (const _k in o) n++;
  return n;
}
