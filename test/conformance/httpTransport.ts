/**
 * The transport the conformance judge runs the engine side through: the engine's HTTP path
 * (src/app/httpReplay.ts) unless CONFORMANCE_TRANSPORT=lw asks for the ListerWatcher-level
 * scripted server (for comparison; it knows no gzip or cut bodies).
 */
import { httpTransport } from '../../src/app/httpReplay';
import type { ReplayTransport } from '../../src/sources/replay';

export function judgeTransport(): ReplayTransport | undefined {
  const t = process.env.CONFORMANCE_TRANSPORT ?? 'http';
  if (t === 'lw') return undefined;
  if (t !== 'http') throw new Error(`CONFORMANCE_TRANSPORT must be http or lw, not ${JSON.stringify(t)}`);
  return httpTransport;
}
