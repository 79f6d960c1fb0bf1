/**
 * importTrace (src/trace/traceFile.ts) on anything a user might open: arbitrary JSON, random
 * bytes, valid traces with fields dropped, renamed or retyped, huge numbers and deep nesting.
 * It either accepts the trace or throws one TraceFileError with one line of text, and whatever
 * it accepts can be exported and summarised (findings) without another exception. Traces the
 * tool wrote round-trip byte for byte.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { TraceEvent } from '../../../src/format/events';
import { computeFindings } from '../../../src/trace/findings';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';
import { exportTrace, importTrace, TraceFileError } from '../../../src/trace/traceFile';
import { SAMPLE_EVENTS, header, numbered } from '../trace/fixtures';
import { awkwardString, check, isOneLine, jsonValue, mutate, mutation } from './support';

/** Imports `text`; returns the trace or the TraceFileError message, and fails on anything else. */
function tryImport(text: string): { trace?: { header: TraceHeader; events: RecordedEvent[] }; error?: string } {
  try {
    return { trace: importTrace(text) };
  } catch (e) {
    assert.ok(e instanceof TraceFileError, `not a TraceFileError: ${(e as Error)?.stack ?? String(e)}`);
    assert.ok(isOneLine(e.message), `not one line: ${JSON.stringify(e.message)}`);
    assert.ok(e.message.length < 1000, `message of ${e.message.length} characters`);
    return { error: e.message };
  }
}

/** What the editor and the CLI do with an accepted trace. */
function useAccepted(trace: { header: TraceHeader; events: RecordedEvent[] }): void {
  const again = exportTrace(trace);
  assert.deepEqual(importTrace(again).events.length, trace.events.length);
  computeFindings(trace.header, trace.events);
}

const SAMPLES = Object.values(SAMPLE_EVENTS) as TraceEvent[];

/** A valid trace: sample events in any order and number, with strings and times varied. */
const validTrace = fc
  .record({
    picks: fc.array(fc.nat(SAMPLES.length - 1), { maxLength: 30 }),
    strings: fc.array(awkwardString, { minLength: 1, maxLength: 8 }),
    gaps: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 5 }),
    redacted: fc.boolean(),
    namespace: fc.option(awkwardString, { nil: undefined }),
  })
  .map(({ picks, strings, gaps, redacted, namespace }) => {
    let t = 0;
    let seq = 0;
    const events = picks.map((p, i) => {
      const e = structuredClone(SAMPLES[p]) as unknown as Record<string, unknown>;
      for (const k of ['key', 'rv', 'text', 'msg', 'handler', 'detail', 'continue']) {
        if (typeof e[k] === 'string') e[k] = strings[(i + k.length) % strings.length];
      }
      t += (gaps[i % gaps.length] % 7) / 2;
      e.t = t;
      seq += gaps[i % gaps.length];
      return { ...e, seq } as RecordedEvent;
    });
    return { header: header({ redacted, ...(namespace !== undefined ? { namespace } : {}) }), events };
  });

describe('robustness: importTrace', () => {
  it('traces the tool writes round-trip byte for byte, and import accepts them', async () => {
    await check(
      fc.property(validTrace, (trace) => {
        const text = exportTrace(trace);
        const imported = tryImport(text);
        assert.equal(imported.error, undefined);
        assert.equal(exportTrace(imported.trace!), text);
      }),
    );
  });

  it('arbitrary JSON values: a TraceFileError with one line, never another exception', async () => {
    await check(
      fc.property(jsonValue, (v) => {
        const r = tryImport(JSON.stringify(v) ?? 'null');
        assert.ok(r.error !== undefined);
      }),
    );
  });

  it('random text and bytes: a TraceFileError with one line', async () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('utf8')), fc.string({ unit: 'binary', maxLength: 100 }));
    await check(fc.property(text, (t) => assert.ok(tryImport(t).error !== undefined)));
  });

  it('a valid trace cut short anywhere: a TraceFileError with one line', async () => {
    await check(
      fc.property(validTrace, fc.nat(), (trace, cut) => {
        const text = exportTrace(trace);
        const r = tryImport(text.slice(0, cut % text.length));
        assert.ok(r.error !== undefined);
      }),
    );
  });

  it('valid traces with fields dropped, renamed or retyped: accepted and usable, or one clear line', async () => {
    await check(
      fc.property(validTrace, fc.array(mutation, { minLength: 1, maxLength: 4 }), (trace, muts) => {
        const doc = JSON.parse(exportTrace(trace)) as unknown;
        for (const m of muts) mutate(doc, m);
        const r = tryImport(JSON.stringify(doc));
        if (r.trace) useAccepted(r.trace);
      }),
      { timeMs: 3000 },
    );
  });

  it('the format field names what is wrong: missing, another tool, another version', () => {
    assert.match(tryImport('{}').error!, /no "format" field/);
    assert.match(tryImport('{"format":"chrome-trace"}').error!, /format is "chrome-trace"/);
    assert.match(tryImport('{"format":"informer-trace/v9"}').error!, /unsupported trace version/);
    assert.match(tryImport('[]').error!, /expected a JSON object/);
  });

  it('texts from the file that would break the line are shown escaped', () => {
    for (const format of ['informer-trace/v2\nmore', 'x\r\ny', 'a\u2028b']) {
      const r = tryImport(JSON.stringify({ format }));
      assert.ok(r.error !== undefined && isOneLine(r.error), JSON.stringify(r.error));
    }
    const doc = JSON.parse(exportTrace({ header: header(), events: numbered([SAMPLE_EVENTS.log]) })) as { header: { gates: Record<string, unknown> } };
    doc.header.gates['bad\nkey'] = 'not a boolean';
    const r = tryImport(JSON.stringify(doc));
    assert.ok(r.error !== undefined && isOneLine(r.error), JSON.stringify(r.error));
  });

  it('deeply nested JSON (100 000 levels) is a TraceFileError, not a stack overflow', () => {
    const deep = (open: string, close: string) => open.repeat(100_000) + '1' + close.repeat(100_000);
    const texts = [
      deep('[', ']'),
      `{"format":${deep('[', ']')}}`,
      `{"format":${deep('{"a":', '}')}}`,
      `{"format":"informer-trace/v1","header":${deep('{"a":', '}')}}`,
      `{"format":"informer-trace/v1","header":{},"events":[{"seq":0,"t":0,"type":"distribute","diff":[{"path":"x","old":${deep('[', ']')}}]}]}`,
    ];
    for (const text of texts) {
      assert.ok(tryImport(text).error !== undefined);
    }
  });

  it('a diff value nested just under the limit still exports; one past it is refused with its path', () => {
    const distribute = { ...SAMPLE_EVENTS.distribute, diff: [{ path: 'data.x', old: '@', new: 2 }] };
    const valid = JSON.stringify({ format: 'informer-trace/v1', header: header(), events: numbered([distribute]) });
    // old sits at depth 5 (doc, events, 0, diff, 0): 994 more levels of arrays put its leaf at 999.
    const ok = tryImport(valid.replace('"@"', '['.repeat(994) + '1' + ']'.repeat(994)));
    assert.equal(ok.error, undefined);
    useAccepted(ok.trace!);
    const refused = tryImport(valid.replace('"@"', '['.repeat(996) + '1' + ']'.repeat(996)));
    assert.match(refused.error ?? '', /nested deeper than 1000 levels \(at \/events\/0\/diff\/0\/old\/0\/0/);
  });

  it('a deeply nested diff value inside a valid update is either refused or still exports', () => {
    // Built as text: JSON.stringify itself overflows the stack on such a value.
    const distribute = { ...SAMPLE_EVENTS.distribute, diff: [{ path: 'data.x', old: '@', new: 2 }] };
    const valid = JSON.stringify({ format: 'informer-trace/v1', header: header(), events: numbered([distribute]) });
    const text = valid.replace('"@"', '['.repeat(20_000) + '1' + ']'.repeat(20_000));
    const r = tryImport(text);
    if (r.trace) useAccepted(r.trace);
  });
});
