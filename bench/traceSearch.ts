/**
 * The webview's object search on a large trace, in Node: the key list for type-ahead and the
 * event a key jumps to, computed over the rebuilt events (filter.ts's objectKeys and jumpTarget
 * over TimelineData.allEvents(), as the webview did before) and over the columns
 * (TimelineData.objectKeys / jumpTarget). Both must agree; CPU ms of each, per round.
 *
 * Run: node --import tsx bench/traceSearch.ts FILE [--rounds R]
 */
import { readFileSync } from 'node:fs';
import { encodeBatch } from '../src/protocol/eventColumns';
import { importTrace } from '../src/trace/traceFile';
import { jumpTarget, objectKeys } from '../webview/model/filter';
import { TimelineData } from '../webview/model/timelineData';

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function timed<T>(f: () => T): [T, number] {
  const c = cpu();
  const r = f();
  return [r, cpu() - c];
}

function main(): void {
  const path = process.argv[2];
  const i = process.argv.indexOf('--rounds');
  const rounds = i >= 0 ? Number(process.argv[i + 1]) : 3;
  if (!path) throw new Error('usage: node --import tsx bench/traceSearch.ts FILE [--rounds R]');
  const { events } = importTrace(readFileSync(path, 'utf8'));
  const data = new TimelineData();
  if (!data.appendColumns(encodeBatch(events))) throw new Error('the columns were refused');
  console.log(`${events.length.toLocaleString('en-US')} events\n`);
  console.log('| round | keys: rebuilt events, CPU ms | keys: columns, CPU ms | jump: rebuilt events | jump: columns |');
  console.log('| --- | --- | --- | --- | --- |');
  for (let r = 1; r <= rounds; r++) {
    const [before, keysOld] = timed(() => objectKeys(data.allEvents()));
    const [after, keysNew] = timed(() => data.objectKeys());
    if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error('the key lists differ');
    const key = before[Math.floor(before.length / 2)];
    const [j1, jumpOld] = timed(() => jumpTarget(data.allEvents(), key));
    const [j2, jumpNew] = timed(() => data.jumpTarget(key));
    if (j1 !== j2) throw new Error(`the jump targets differ: ${j1} vs ${j2}`);
    console.log(`| ${r} | ${Math.round(keysOld)} | ${Math.round(keysNew)} | ${Math.round(jumpOld)} | ${Math.round(jumpNew)} |`);
  }
}

main();
