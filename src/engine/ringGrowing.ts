/**
 * A FIFO ring buffer that doubles when full and never shrinks (k8s.io/utils buffer.RingGrowing).
 * processorListener buffers notifications in one, so a slow handler never blocks distribution:
 * the buffer is unbounded by design, and its capacity tells how far behind a handler once fell.
 * The FIFOs use it as a deque so that popping the head is O(1).
 */
export class RingGrowing<T> {
  private slots: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 1) {
    this.slots = new Array<T | undefined>(Math.max(1, initialCapacity));
  }

  get length(): number {
    return this.count;
  }

  get capacity(): number {
    return this.slots.length;
  }

  push(item: T): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) % this.slots.length] = item;
    this.count++;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.slots[this.head];
    // Clear the slot so the ring does not keep a popped object alive.
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.slots.length;
    this.count--;
    return item;
  }

  peek(): T | undefined {
    return this.count === 0 ? undefined : this.slots[this.head];
  }

  /** Oldest first. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.slots[(this.head + i) % this.slots.length] as T;
  }

  private grow(): void {
    const bigger = new Array<T | undefined>(this.slots.length * 2);
    for (let i = 0; i < this.count; i++) bigger[i] = this.slots[(this.head + i) % this.slots.length];
    this.slots = bigger;
    this.head = 0;
  }
}
