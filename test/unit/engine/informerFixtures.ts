/** Shared helpers for the FIFO / store / informer unit tests. */
import type { EventOf, EventSink, TraceEvent, TraceEventType } from '../../../src/format/events';
import type { Delta, Queue } from '../../../src/engine/fifo';
import { isTombstone, type KubeObject } from '../../../src/engine/objects';

export function cm(name: string, rv: string, data?: Record<string, string>, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, resourceVersion: rv }, ...(data ? { data } : {}) };
}

export class CaptureSink implements EventSink {
  readonly events: TraceEvent[] = [];
  emit(e: TraceEvent): void {
    this.events.push(e);
  }
  of<T extends TraceEventType>(type: T): EventOf<T>[] {
    return this.events.filter((e): e is EventOf<T> => e.type === type);
  }
  logs(): string[] {
    return this.of('log').map((e) => e.msg);
  }
}

export interface Popped {
  deltas: Delta[];
  isInInitialList: boolean;
  syncedDuringProcess: boolean;
}

/** Pops everything queued right now, recording what process saw. */
export async function popAll(q: Queue): Promise<Popped[]> {
  const out: Popped[] = [];
  while (q.depthDeltas() > 0) {
    await q.pop((deltas, isInInitialList) => {
      out.push({ deltas: [...deltas], isInInitialList, syncedDuringProcess: q.hasSynced() });
    });
  }
  return out;
}

/** "Type:key@rv" per delta, for compact assertions. */
export function deltaText(d: Delta): string {
  const o = d.object;
  if (o === undefined) return `${d.type}${d.resourceVersion !== undefined ? `@${d.resourceVersion}` : ''}`;
  if (isTombstone(o)) return `${d.type}:tombstone(${o.key}@${o.obj?.metadata?.resourceVersion ?? '-'})`;
  return `${d.type}:${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.resourceVersion}`;
}
