// Union of the logs in two oracle outputs (each log ends with its {"kind":"end",…} line), in byte
// order, as the oracle writes them. Used by regen.sh so that the set of logs only grows.
//   node mergeVariants.js OLD.ndjson NEW.ndjson > MERGED.ndjson
// Exits 3 (after writing the union) when OLD and NEW share no log: client-go produced none of the
// checked-in logs this time, so they are stale, not merely missing a rarer log.
'use strict';
const fs = require('node:fs');
function variants(file) {
  const out = [];
  let cur = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    cur += line + '\n';
    if (line.startsWith('{"kind":"end"')) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur) out.push(cur);
  return out;
}
const before = variants(process.argv[2]);
const now = variants(process.argv[3]);
const all = new Set([...before, ...now]);
// Byte order, like Go's sort.Strings.
process.stdout.write([...all].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).join(''));
const shared = now.some((v) => before.includes(v));
if (before.length > 0 && now.length > 0 && !shared) process.exitCode = 3;
