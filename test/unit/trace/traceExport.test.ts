import { strict as assert } from 'assert';
import Ajv2020 from 'ajv/dist/2020';
import schema from '../../../src/trace/schema/informer-trace-v1.schema.json';
import { exportTrace, exportTraceChunks, importTrace, type TraceData } from '../../../src/trace/traceFile';
import type { RecordedEvent } from '../../../src/format/events';
import { SAMPLE_EVENTS, header, numbered } from './fixtures';
import { referenceExport } from './exportReference';
import { scenarioTraces } from './scenarioTraces';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTrace, writeTraceFile } from '../../../src/trace/traceWrite';

/** Events no engine writes but a file may hold: the exporter must still give the reference bytes. */
function oddEvents(): RecordedEvent[] {
  const odd: Record<string, unknown>[] = [
    { type: 'notify', t: 1, seq: 0, handler: 'h', op: 'update', key: 'a/b', rv: '2', isSync: false, pending: 0, zeta: { b: 1, a: [{ y: 2, x: 1 }] } },
    { seq: 1, t: 2, type: 'distribute', op: 'update', key: 'a/b', isSync: false, delivered: 1, skipped: 0, diff: [{ path: 'metadata.labels', old: { '10': 'x', '2': 'y', b: 1, a: 2 }, new: null }] },
    JSON.parse('{"seq":2,"t":3,"type":"log","level":"info","msg":"m","__proto__":{"a":1},"kv":{"b":"1","a":"2"}}') as Record<string, unknown>,
    { seq: 3, t: 4, type: 'log', level: 'info', msg: 'x', '7': 'integer-like key', undefinedField: undefined },
    { seq: 4, t: 5, type: 'synced', extra: undefined, n: -0, big: 1e21, s: 'line\u2028break "quoted" \\' },
    { t: 6, seq: 5, type: 'rv', rv: '9', source: 'event' },
    { seq: 6, t: 7, type: 'rv', source: 'event', rv: '10' },
    // Fields in output order, nested ones not: only the nested values need sorting.
    { seq: 7, t: 8, type: 'log', kv: { b: '1', a: '2' }, level: 'info', msg: 'm' },
    { seq: 8, t: 9, type: 'consistency.check', extra: [], missing: [], rv: '1', rvMismatch: [{ server: '2', key: 'k', cached: '1' }] },
  ];
  return odd as unknown as RecordedEvent[];
}

async function corpus(): Promise<{ name: string; trace: TraceData }[]> {
  return [
    { name: 'one event of each type', trace: { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) } },
    { name: 'no events', trace: { header: header(), events: [] } },
    { name: 'odd keys and values', trace: { header: header(), events: oddEvents() } },
    { name: 'odd keys, not redacted', trace: { header: header({ redacted: false }), events: oddEvents() } },
    { name: 'secrets', trace: { header: header({ resource: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true } }), events: oddEvents() } },
    ...(await scenarioTraces()),
  ];
}

describe('trace export in chunks', () => {
  it('writes the reference bytes for every conformance scenario, the sample events and odd files, whatever the chunk size', async function () {
    this.timeout(60_000);
    const traces = await corpus();
    assert.ok(traces.length >= 50, `only ${traces.length} traces`);
    let events = 0;
    for (const { name, trace } of traces) {
      const expected = referenceExport(trace);
      assert.equal(exportTrace(trace), expected, name);
      for (const size of [1, 3, 1000]) assert.equal([...exportTraceChunks(trace, size)].join(''), expected, `${name}, chunks of ${size}`);
      events += trace.events.length;
    }
    assert.ok(events > 5000, `the corpus has only ${events} events`);
  });

  it('events of one type whose keys come in other orders or sets, interleaved: each gets its own canonical line', async () => {
    const a = { seq: 0, t: 1, type: 'notify', handler: 'h', op: 'add', key: 'k', rv: '1', isSync: false, pending: 0 };
    const b = { type: 'notify', seq: 1, t: 2, pending: 0, key: 'k', op: 'update', handler: 'h', rv: '2', isSync: true, oldRv: '1' };
    const c = { seq: 2, t: 3, type: 'notify', handler: 'h', op: 'add', key: 'k', rv: '1', isSync: false, pending: 0, change: 'identical' };
    const d = { seq: 3, t: 4, type: 'notify', handler: 'h', op: 'add', key: 'k', rv: '1', isSync: false };
    const events = [a, b, c, d, a, d, c, b].map((e, seq) => ({ ...e, seq })) as unknown as RecordedEvent[];
    const trace = { header: header(), events };
    const expected = referenceExport(trace);
    assert.equal(exportTrace(trace), expected);
    const dir = mkdtempSync(join(tmpdir(), 'export-order-'));
    try {
      const path = join(dir, 'o.informer-trace.json');
      await writeTrace(path, trace.header, events, { lineOffsets: true });
      assert.equal(readFileSync(path, 'utf8'), expected, 'the file writer, from an array, with line offsets');
      await writeTraceFile(path, trace.header, events);
      assert.equal(readFileSync(path, 'utf8'), expected, 'the file writer, from an array');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('chunks hold at most the asked number of events, so no chunk is the whole file', () => {
    const events = numbered(Array.from({ length: 25 }, () => SAMPLE_EVENTS.notify));
    const chunks = [...exportTraceChunks({ header: header(), events }, 10)];
    assert.equal(chunks.length, 1 + 3 + 1);
    assert.deepEqual(chunks.slice(1, 4).map((c) => c.split('\n').filter((l) => l.includes('"seq"')).length), [10, 10, 5]);
  });

  it('a re-import of the export gives the same text (the canonical file is a fixed point)', () => {
    const text = exportTrace({ header: header(), events: oddEvents().filter((e) => !('7' in e)) });
    assert.equal(exportTrace(importTrace(text)), text);
  });
});

describe('trace import: the per-type checks accept exactly what the whole schema accepts', () => {
  const whole = new Ajv2020({ strict: true }).compile(schema);
  const base = JSON.parse(exportTrace({ header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) })) as { events: Record<string, unknown>[] };

  /** Every event with each of its fields removed, nulled, made a string, an object or a negative number. */
  function* mutants(): Generator<unknown> {
    for (let i = 0; i < base.events.length; i++) {
      for (const k of Object.keys(base.events[i])) {
        for (const v of [undefined, null, 'x', {}, -1, 1.5, true, []]) {
          const doc = structuredClone(base);
          if (v === undefined) delete doc.events[i][k];
          else doc.events[i][k] = v;
          yield doc;
        }
      }
    }
    const extra = structuredClone(base);
    (extra as Record<string, unknown>).unknownTopLevel = 1;
    yield extra;
    const noArray = structuredClone(base);
    (noArray as Record<string, unknown>).events = {};
    yield noArray;
  }

  it('for every field of every event type made missing or of another type', () => {
    let accepted = 0;
    let rejected = 0;
    for (const doc of mutants()) {
      const text = JSON.stringify(doc);
      const ok = whole(doc);
      let imported = true;
      try {
        importTrace(text);
      } catch {
        imported = false;
      }
      assert.equal(imported, ok, `${text.slice(0, 300)}: schema says ${ok}`);
      if (ok) accepted++;
      else rejected++;
    }
    assert.ok(accepted > 100 && rejected > 500, `accepted ${accepted}, rejected ${rejected}`);
  });
});
