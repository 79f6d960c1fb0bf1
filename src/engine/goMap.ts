/**
 * A string-keyed map whose iteration order is one that Go's runtime map can produce, for the maps
 * client-go iterates (the store's items: a relist's tombstones, Resync, a late handler's synthetic
 * adds, a watch-list's temporary store).
 *
 * Go (≥ 1.24, Swiss tables) keeps a map of at most 8 entries in one group of 8 slots: a new key
 * takes the lowest empty slot, a deleted key empties its slot at once (a one-group map needs no
 * tombstones), and iteration visits the slots in order starting at a random offset
 * (internal/runtime/maps: putSlotSmall, deleteSmall, Iter.Next). So after "delete a, add a" the
 * re-added key is back in a's old slot, not at the end. Every rotation of the slot order is a
 * possible Go order; this map iterates from slot 0, which is one of them.
 *
 * `make(map, n)` with n > 8 or a 9th key turns the group into a hashed table, whose order depends on
 * a per-map random seed: from then on this map iterates in insertion order (any order is possible
 * in Go; scenarios that must match client-go keep ≤ 8 objects).
 */
export const GO_MAP_GROUP_SLOTS = 8;

export class GoMap<V> {
  private readonly values = new Map<string, V>();
  /** Slot → key while the map is small; undefined once it became a table. */
  private slots: (string | undefined)[] | undefined;

  /** `sizeHint`: the `make(map, n)` hint; above 8 the map starts as a table. */
  constructor(sizeHint = 0) {
    this.slots = sizeHint > GO_MAP_GROUP_SLOTS ? undefined : new Array<string | undefined>(GO_MAP_GROUP_SLOTS).fill(undefined);
  }

  get size(): number {
    return this.values.size;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V): void {
    if (!this.values.has(key) && this.slots) {
      const free = this.slots.indexOf(undefined);
      if (free >= 0) this.slots[free] = key;
      else this.slots = undefined; // the 9th key: Go grows the group into a table
    }
    this.values.set(key, value);
  }

  delete(key: string): boolean {
    if (!this.values.delete(key)) return false;
    if (this.slots) this.slots[this.slots.indexOf(key)] = undefined;
    return true;
  }

  keys(): string[] {
    if (!this.slots) return [...this.values.keys()];
    return this.slots.filter((k): k is string => k !== undefined);
  }

  valuesInOrder(): V[] {
    return this.keys().map((k) => this.values.get(k) as V);
  }

  entries(): [string, V][] {
    return this.keys().map((k) => [k, this.values.get(k) as V]);
  }
}
