/**
 * A batch's columns as they go to a webview: packed (src/protocol/columnPack.ts) and, from
 * DEFLATE_FROM_BYTES on, deflated (DEFLATED_PACKING) at zlib's fastest level, so that the
 * extension host's WebSocket, the browser and the workbench carry ~1 MB of a 1M-event trace
 * instead of 8.3 (each of them spends CPU per byte: docs/BENCHMARKS.md). A batch is packed and
 * deflated once however often it is sent. Free of 'vscode'.
 */
import { deflateSync } from 'node:zlib';
import type { ColumnBatch } from '../protocol/eventColumns';
import { DEFLATED_PACKING, packColumns, type PackedColumns } from '../protocol/columnPack';

/** Packed columns smaller than this go as they are (a live session's deltas and small snapshots: nothing to wait for in the page). */
export const DEFLATE_FROM_BYTES = 64 * 1024;

const deflated = new WeakMap<PackedColumns, PackedColumns>();

/** `b` as it goes to a webview; `from`: as packColumns's (a block of shared columns). */
export function columnsOut(b: ColumnBatch, from = 0): PackedColumns {
  const packed = packColumns(b, from);
  return packed.packed.byteLength < DEFLATE_FROM_BYTES ? packed : deflateColumns(packed);
}

/** Packed columns deflated (DEFLATED_PACKING), whatever their size; the same object for the same columns. */
export function deflateColumns(packed: PackedColumns): PackedColumns {
  let out = deflated.get(packed);
  if (!out) {
    const bytes = deflateSync(new Uint8Array(packed.packed), { level: 1 });
    const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    out = { ...packed, packing: DEFLATED_PACKING, packed: buffer as ArrayBuffer };
    deflated.set(packed, out);
  }
  return out;
}
