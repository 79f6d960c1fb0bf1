/**
 * Deflated columns (DEFLATED_PACKING: a large snapshot or part, src/vscode/columnsOut.ts) made the
 * packed columns they were, by the browser's own zlib (DecompressionStream), off the page's thread.
 * Bytes that do not inflate are left as they came: the packing they keep is one the model refuses
 * as malformed, as it refuses any other columns it cannot read.
 */
import { DEFLATED_PACKING, PACKING, type PackedColumns } from '../../src/protocol/columnPack';

export function isDeflated(columns: unknown): columns is PackedColumns {
  return typeof columns === 'object' && columns !== null && (columns as PackedColumns).packing === DEFLATED_PACKING && (columns as PackedColumns).packed instanceof ArrayBuffer;
}

export async function inflateColumns(p: PackedColumns): Promise<PackedColumns> {
  try {
    const inflated = new Response(p.packed).body!.pipeThrough(new DecompressionStream('deflate'));
    return { ...p, packing: PACKING, packed: await new Response(inflated).arrayBuffer() };
  } catch {
    return p;
  }
}
