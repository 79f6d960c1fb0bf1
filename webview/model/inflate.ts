/**
 * Deflated columns (DEFLATED_PACKING: a large snapshot or part, src/vscode/columnsOut.ts) made the
 * packed columns they were, by the browser's own zlib (DecompressionStream).
 * Bytes that do not inflate are left as they came: the packing they keep is one the model refuses
 * as malformed, as it refuses any other columns it cannot read. InOrderInbox puts it in front of a
 * page's message handler (the timeline and the compare view).
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

/** The deflated columns a message carries in its params (a snapshot or a snapshot part), if any. */
function deflatedIn(msg: unknown): PackedColumns | undefined {
  const params = typeof msg === 'object' && msg !== null ? (msg as { params?: unknown }).params : undefined;
  const columns = typeof params === 'object' && params !== null ? (params as { columns?: unknown }).columns : undefined;
  return isDeflated(columns) ? columns : undefined;
}

/**
 * Hands the host's messages to `take` in the order they came: one whose columns came deflated
 * once they are inflated, and every message after it only after it. With nothing deflated ahead,
 * a message is taken at once.
 */
export class InOrderInbox {
  private waiting = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly take: (msg: unknown) => void) {}

  handle(msg: unknown): void {
    const deflated = deflatedIn(msg);
    if (this.waiting === 0 && !deflated) return this.take(msg);
    this.waiting++;
    this.chain = this.chain
      .then(async () => this.take(deflated ? { ...(msg as object), params: { ...(msg as { params: object }).params, columns: await inflateColumns(deflated) } } : msg))
      .catch((e: unknown) => console.error(e))
      .finally(() => this.waiting--);
  }
}
