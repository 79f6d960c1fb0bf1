/**
 * Column-wise storage for one lane: parallel typed arrays that grow by doubling. Rows are
 * appended in time order (trace events arrive in seq order and their times never decrease),
 * which is the invariant every range search in binning.ts relies on.
 */

type NumericArray = Float64Array | Uint32Array | Uint8Array | Float32Array;
type ArrayCtor<A extends NumericArray> = { new (n: number): A };

export interface ColumnSpec {
  [name: string]: ArrayCtor<NumericArray>;
}

type Columns<S extends ColumnSpec> = { [K in keyof S]: InstanceType<S[K]> };

export class PackedLane<S extends ColumnSpec> {
  private cols: Columns<S>;
  /** The spec's column names in order, and the same columns as a list in that order. */
  private readonly names: (keyof S)[];
  private list: NumericArray[] = [];
  private capacity: number;
  private count = 0;

  constructor(
    private readonly spec: S,
    initialCapacity = 256,
  ) {
    this.names = Object.keys(spec) as (keyof S)[];
    this.capacity = Math.max(1, initialCapacity);
    this.cols = this.allocate(this.capacity);
  }

  get length(): number {
    return this.count;
  }

  /** The live columns; valid up to `length`. Do not keep them across `push` (they may be reallocated). */
  get columns(): Readonly<Columns<S>> {
    return this.cols;
  }

  push(row: { [K in keyof S]: number }): number {
    if (this.count === this.capacity) this.grow();
    const names = this.names;
    for (let k = 0; k < names.length; k++) this.list[k][this.count] = row[names[k]];
    return this.count++;
  }

  /**
   * Appends a row of a lane of three columns, its values in the spec's order (`push` without the
   * row object, for the million rows of a snapshot).
   */
  push3(a: number, b: number, c: number): number {
    if (this.list.length !== 3) throw new RangeError(`push3 on a lane of ${this.list.length} columns`);
    if (this.count === this.capacity) this.grow();
    const l = this.list;
    const n = this.count;
    l[0][n] = a;
    l[1][n] = b;
    l[2][n] = c;
    return this.count++;
  }

  /**
   * Room for `extra` more rows, made at once: a snapshot's rows reserved ahead grow a lane once,
   * not a dozen times by doubling (each time touching fresh memory and copying what it held).
   */
  reserve(extra: number): void {
    const need = this.count + extra;
    if (need <= this.capacity) return;
    this.resize(Math.max(need, this.capacity * 2));
  }

  /** Changes one cell of an existing row (e.g. closing an open watch span). */
  set(index: number, column: keyof S, value: number): void {
    if (index < 0 || index >= this.count) throw new RangeError(`row ${index} out of range 0..${this.count - 1}`);
    this.cols[column][index] = value;
  }

  clear(): void {
    this.count = 0;
  }

  private grow(): void {
    this.resize(this.capacity * 2);
  }

  private resize(capacity: number): void {
    const old = this.cols;
    const next = this.allocate(capacity);
    for (const name of this.names) next[name].set(old[name].subarray(0, this.count));
    this.cols = next;
    this.capacity = capacity;
  }

  /** Fresh columns of `n` rows, which become the lane's list too. */
  private allocate(n: number): Columns<S> {
    const out = {} as Columns<S>;
    for (const name of this.names) out[name] = new this.spec[name](n) as InstanceType<S[typeof name]>;
    this.list = this.names.map((name) => out[name]);
    return out;
  }
}

/** First index i in [from, n) with times[i] >= t (n when none). `times` must be non-decreasing. */
export function lowerBound(times: ArrayLike<number>, n: number, t: number, from = 0): number {
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i in [from, n) with times[i] > t (n when none). */
export function upperBound(times: ArrayLike<number>, n: number, t: number, from = 0): number {
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
