/**
 * Structural equality of JSON values (the DeepEqual of decoded objects). Iterative: objects may be
 * nested as deep as the decoder allows (10,000 levels), far past the call stack. (diff.ts uses and
 * re-exports it.)
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    const rx = x as Record<string, unknown>;
    const ry = y as Record<string, unknown>;
    const kx = Object.keys(rx).filter((k) => rx[k] !== undefined);
    const ky = Object.keys(ry).filter((k) => ry[k] !== undefined);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(ry, k)) return false;
      stack.push([rx[k], ry[k]]);
    }
  }
  return true;
}
