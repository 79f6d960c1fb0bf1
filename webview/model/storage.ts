/**
 * What the header says about where a session's events are: how many in memory, how many on disk
 * against the disk bound, how many dropped, which spilled range the view has loaded, and what
 * search and filters cover (the events this view holds: memory, the spilled marks, a loaded range).
 */
import type { StorageInfo } from '../../src/protocol/timeline';

function megabytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(bytes % (1024 * 1024 * 1024) === 0 ? 0 : 1)} GB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** "2,000 in memory · 18,000 on disk (3.1 MB of 1 GB)" (· "5 dropped"). */
export function storageValue(st: StorageInfo): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const parts = [`${n(st.memoryEvents)} in memory`];
  if (st.disk) parts.push(`${n(st.disk.events)} on disk (${megabytes(st.disk.bytes)} of ${megabytes(st.disk.maxBytes)})`);
  else parts.push('no spill to disk');
  if (st.disk?.error) parts.push(`spilling stopped: ${st.disk.error}`);
  if (st.dropped > 0) parts.push(`${n(st.dropped)} dropped`);
  return parts.join(' · ');
}

/** The chip's tooltip: the bound, what the timeline shows of the disk, what search and filters cover. */
export function storageHelp(st: StorageInfo, loaded: { events: number; complete: boolean } | undefined, spilledEvents: number): string {
  const lines = [
    st.disk
      ? `Events beyond the in-memory window are written to disk, up to ${megabytes(st.disk.maxBytes)} (setting informerInspector.spillLimitMB); past that the oldest are dropped and the trace says so.`
      : 'This session keeps only its in-memory window (spilling is off); the oldest events are dropped and the trace says so.',
  ];
  if (spilledEvents > 0) {
    lines.push('The timeline shows every relist, LIST, watch and state of the whole run; on-disk notifications and FIFO activity are drawn as counts until you zoom in, which loads them.');
    lines.push(
      loaded
        ? `Loaded from disk: ${loaded.events.toLocaleString('en-US')} events${loaded.complete ? '' : ' (part of the window: zoom in further for the rest)'}. Search and filters cover the events in memory and this loaded range, not the rest on disk.`
        : 'Search and filters cover the events in memory only, not those on disk (zoom into a range to load it).',
    );
  }
  return lines.join('\n');
}
