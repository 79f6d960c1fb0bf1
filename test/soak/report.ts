/** The soak's figures: quantiles, the memory samples and their SVG chart (docs/soak/soak-memory.svg). */

export function quantile(xs: number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export interface Sample {
  t: number;
  rss: number;
  heap: number;
}

export function memorySvg(samples: Sample[], warmupT: number): string {
  const W = 800;
  const H = 300;
  const pad = 40;
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const yMax = Math.max(1, ...samples.map((s) => s.rss)) * 1.1;
  const x = (t: number) => pad + ((W - 2 * pad) * t) / tMax;
  const y = (v: number) => H - pad - ((H - 2 * pad) * v) / yMax;
  const line = (f: (s: Sample) => number) => samples.map((s) => `${x(s.t).toFixed(1)},${y(f(s)).toFixed(1)}`).join(' ');
  const mb = (v: number) => `${(v / 2 ** 20).toFixed(0)} MiB`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#888"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="#888"/>
<line x1="${x(warmupT)}" y1="${pad}" x2="${x(warmupT)}" y2="${H - pad}" stroke="#bbb" stroke-dasharray="4"/><text x="${x(warmupT) + 3}" y="${pad + 10}" fill="#888">warm-up ends</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="${line((s) => s.rss)}"/>
<polyline fill="none" stroke="#d62728" stroke-width="1.5" points="${line((s) => s.heap)}"/>
<text x="${pad}" y="${pad - 8}">RSS (blue) and V8 heap used after GC (red) of the soak process; y max ${mb(yMax)}, x = ${tMax.toFixed(0)} s</text>
<text x="${pad - 4}" y="${H - pad + 14}">0</text><text x="${W - pad - 30}" y="${H - pad + 14}">${tMax.toFixed(0)} s</text>
<text x="2" y="${y(yMax / 1.1) + 4}">${mb(yMax / 1.1)}</text>
</svg>
`;
}
