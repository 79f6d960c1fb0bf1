/**
 * The interfaces between the reflector, the FIFOs and the informer (client-go fifo.go, store.go).
 * DeltaFIFO (deltaFifo.ts) and RealFIFO (realFifo.ts) implement both ReflectorStore and Queue.
 */
import type { DeltaType } from '../format/events';
import type { KubeObject, StoreObject } from './objects';

/** One queued change. For ReplacedAll / SyncAll / Bookmark the payload rides in the extra fields. */
export interface Delta {
  type: DeltaType;
  /** The object (or tombstone). For ReplacedAll/SyncAll/Bookmark: undefined. */
  object?: StoreObject;
  /** ReplacedAll: the (transformed) list. */
  objects?: KubeObject[];
  /** ReplacedAll / Bookmark: the resourceVersion. */
  resourceVersion?: string;
}

/**
 * What the reflector writes into (client-go's Store as the reflector uses it). A method that
 * throws is logged by the reflector (spec §1.7: "Unable to add watch event object to store") and
 * the stream continues; replace() throwing fails the list ("unable to sync list result").
 */
export interface ReflectorStore {
  add(obj: KubeObject): void;
  update(obj: KubeObject): void;
  delete(obj: KubeObject): void;
  replace(list: KubeObject[], resourceVersion: string): void;
  resync(): void;
  /** ReflectorBookmarkStore (v0.36 RealFIFO). Absent: bookmarks only move the reflector's RV. */
  bookmark?(resourceVersion: string): void;
  /** TransformingStore: the informer's transform, if any (both FIFOs). */
  transformer?(): ((obj: KubeObject) => KubeObject) | undefined;
}

/**
 * The consumer side. process is awaited while the FIFO keeps its own ordering guarantees
 * (DeltaFIFO holds its lock across process; RealFIFO may release it, §3.7, §3.10).
 */
export type ProcessFunc = (deltas: Delta[], isInInitialList: boolean) => Promise<void> | void;

export interface Queue extends ReflectorStore {
  /** Waits for an item, processes it, and resolves. Rejects with FIFOClosedError once closed and empty. */
  pop(process: ProcessFunc): Promise<void>;
  hasSynced(): boolean;
  close(): void;
  /** Distinct keys waiting (DeltaFIFO) / entries (RealFIFO) — the depth each reports (§3.9). */
  depthKeys(): number;
  /** Total queued deltas. */
  depthDeltas(): number;
}

export class FIFOClosedError extends Error {
  constructor(text = 'DeltaFIFO: manipulating with closed queue') {
    super(text);
    this.name = 'FIFOClosedError';
  }
}
