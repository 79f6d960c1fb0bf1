import { strict as assert } from 'assert';
import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'fs';
import { join } from 'path';
import schema from '../../../src/trace/schema/informer-trace-v1.schema.json';
import { TraceRecorder } from '../../../src/trace/recorder';
import { exportTrace, importTrace, TraceFileError } from '../../../src/trace/traceFile';
import { ALL_EVENT_TYPES, SAMPLE_EVENTS, header, numbered } from './fixtures';

/** What the assertions read of a parsed export. */
interface ExportedDoc {
  header: { dropped: number };
  events: { type: string }[];
}

const validate = new Ajv2020({ strict: true }).compile(schema);

function sampleTrace() {
  return { header: header(), events: numbered(Object.values(SAMPLE_EVENTS)) };
}

describe('trace file (informer-trace/v1)', () => {
  it('the schema covers every event type of the TypeScript union, and nothing else', () => {
    const inSchema = (schema.$defs.event.properties.type.enum as string[]).slice().sort();
    assert.deepEqual(inSchema, Object.keys(ALL_EVENT_TYPES).sort());
    const defs = schema.$defs as Record<string, unknown>;
    for (const t of Object.keys(ALL_EVENT_TYPES)) assert.ok(defs[`event.${t}`], `no $defs entry for ${t}`);
  });

  it('the schema also matches the union as written in events.ts (a runtime check that does not rely on tsc)', () => {
    const source = readFileSync(join(__dirname, '../../../src/format/events.ts'), 'utf8');
    const union = source.slice(source.indexOf('export type EngineEvent ='), source.indexOf('export type TraceEvent ='));
    const inSource = [...union.matchAll(/type: '([A-Za-z.]+)'/g)].map((m) => m[1]).sort();
    assert.ok(inSource.length > 30);
    assert.deepEqual((schema.$defs.event.properties.type.enum as string[]).slice().sort(), inSource);
  });

  it('every field of every sample event is described in the schema', () => {
    const defs = schema.$defs as unknown as Record<string, { properties: Record<string, unknown> }>;
    for (const [t, e] of Object.entries(SAMPLE_EVENTS)) {
      for (const k of Object.keys(e)) {
        if (k === 't' || k === 'type') continue;
        assert.ok(k in defs[`event.${t}`].properties, `${t}.${k} missing from the schema`);
      }
    }
  });

  it('an exported trace with one event of each type validates against the schema', () => {
    const doc = JSON.parse(exportTrace(sampleTrace())) as ExportedDoc;
    assert.ok(validate(doc), JSON.stringify(validate.errors));
    assert.equal(doc.events.length, Object.keys(ALL_EVENT_TYPES).length);
  });

  it('an exported recorder validates, with drops recorded', () => {
    const { dropped: _d, ...h } = header({ cap: 5 });
    const r = new TraceRecorder(h, 5);
    for (let i = 0; i < 12; i++) r.emit(SAMPLE_EVENTS.notify);
    const text = exportTrace(r);
    const doc = JSON.parse(text) as ExportedDoc;
    assert.ok(validate(doc), JSON.stringify(validate.errors));
    assert.ok(doc.header.dropped > 0);
    assert.ok(doc.events.some((e) => e.type === 'trace.dropped'));
  });

  it('the schema rejects a wrong field type and a missing required field', () => {
    const doc = JSON.parse(exportTrace(sampleTrace()));
    doc.events[0].fifo = 'LinkedList';
    assert.equal(validate(doc), false);
    const doc2 = JSON.parse(exportTrace(sampleTrace()));
    delete doc2.events.find((e: { type: string }) => e.type === 'watch.end').outcome;
    assert.equal(validate(doc2), false);
  });

  it('import then export gives the identical file', () => {
    const text = exportTrace(sampleTrace());
    const again = exportTrace(importTrace(text));
    assert.equal(again, text);
  });

  it('export is canonical: key order of the input does not matter', () => {
    const a = sampleTrace();
    const reversed = {
      header: Object.fromEntries(Object.entries(a.header).reverse()) as typeof a.header,
      events: a.events.map((e) => Object.fromEntries(Object.entries(e).reverse()) as typeof e),
    };
    assert.equal(exportTrace(reversed), exportTrace(a));
    assert.match(exportTrace(a), /^\{\n {2}"format": "informer-trace\/v1",\n {2}"header": \{/);
    assert.match(exportTrace(a), /\n {4}\{"seq":0,"t":0,"type":"informer.start",/);
  });

  it('an empty trace round-trips', () => {
    const text = exportTrace({ header: header(), events: [] });
    assert.equal(exportTrace(importTrace(text)), text);
    assert.deepEqual(importTrace(text).events, []);
  });

  const bad: [string, string, RegExp][] = [
    ['not JSON', '{"format": ', /not a trace file: the text is not JSON/],
    ['a JSON array', '[1,2]', /expected a JSON object/],
    ['another format', '{"format":"informer-scenario/v1","steps":[]}', /not an informer trace: format is "informer-scenario\/v1"/],
    ['no format', '{"kind":"request"}', /has no "format" field/],
    ['a newer version', '{"format":"informer-trace/v2"}', /unsupported trace version "informer-trace\/v2"/],
  ];
  for (const [name, text, re] of bad) {
    it(`import of ${name} throws one clear TraceFileError`, () => {
      assert.throws(() => importTrace(text), (e: unknown) => e instanceof TraceFileError && re.test(e.message));
    });
  }

  it('import names the path of a schema violation', () => {
    const doc = JSON.parse(exportTrace(sampleTrace()));
    doc.events[3].t = 'soon';
    assert.throws(
      () => importTrace(JSON.stringify(doc)),
      (e: unknown) => e instanceof TraceFileError && /schema violation at \/events\/3\/t: must be number/.test(e.message),
    );
    const doc2 = JSON.parse(exportTrace(sampleTrace()));
    doc2.events[2].type = 'nonsense';
    assert.throws(() => importTrace(JSON.stringify(doc2)), /schema violation at \/events\/2\/type: must be equal to one of the allowed values/);
    const doc3 = JSON.parse(exportTrace(sampleTrace()));
    delete doc3.header.profile;
    assert.throws(() => importTrace(JSON.stringify(doc3)), /schema violation at \/header: must have required property 'profile'/);
  });

  it('import accepts a file saved with a byte-order mark', () => {
    const text = exportTrace(sampleTrace());
    assert.equal(exportTrace(importTrace(`\uFEFF${text}`)), text);
  });

  it('import rejects seqs that do not increase', () => {
    const doc = JSON.parse(exportTrace(sampleTrace()));
    doc.events[2].seq = 1;
    assert.throws(() => importTrace(JSON.stringify(doc)), /event seqs must increase, but \/events\/2 has seq 1 after 1/);
  });

  it('export of a redacted trace scrubs events that were not redacted on the way in', () => {
    const t = { header: header(), events: numbered([{ t: 0, type: 'log', level: 'info', msg: 'token=s3cr3tvalue' }]) };
    const text = exportTrace(t);
    assert.ok(!text.includes('s3cr3tvalue'));
    const raw = exportTrace({ ...t, header: header({ redacted: false }) });
    assert.ok(raw.includes('s3cr3tvalue'), 'redacted:false keeps values');
  });
});
