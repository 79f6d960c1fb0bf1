/**
 * Numbers the findings show: the evidence count is the real one (not the 50 seqs kept), plurals
 * agree with the count, and a relist storm made of refused LISTs says so.
 */
import { strict as assert } from 'assert';
import type { TraceEvent } from '../../../src/format/events';
import { formatFindings } from '../../../src/cli/findingsText';
import { computeFindings } from '../../../src/trace/findings';
import { MAX_EVIDENCE } from '../../../src/trace/findings/types';
import { SummaryModel } from '../../../src/trace/summary';
import { header, numbered } from './fixtures';

const relist = (t: number, row = 6): TraceEvent => ({ t, type: 'relist', reason: 'ConnectionRefused', row, rv: '10', consistent: false, text: 'connection refused' });
const listed = (t: number, items: number): TraceEvent => ({ t, type: 'list.done', rv: '10', items, pages: 1, paginated: false, durationMs: 1 });
const identical = (t: number, key: string): TraceEvent => ({
  t, type: 'distribute', op: 'update', key, isSync: true, delivered: 1, skipped: 0, change: 'identical', oldRv: '5', rv: '5',
});

describe('findings: the numbers they show', () => {
  it('"Show evidence (N)": N is every event that shows it, even past the 50 seqs kept', () => {
    const ev: TraceEvent[] = [relist(10), listed(11, 144)];
    for (let i = 0; i < 144; i++) ev.push(identical(20, `default/o${i}`));
    const [f] = computeFindings(header({ profile: 'v1.15' }), numbered(ev)).filter((x) => x.id === 'identical-updates-after-relist');
    assert.ok(f);
    assert.equal(f.evidence.length, MAX_EVIDENCE);
    assert.equal(f.evidenceCount, 145, 'the relist and its 144 identical updates');
    assert.match(f.title, /^144 identical updates/);
    assert.ok(formatFindings([f]).some((l) => l.endsWith('… (145)')));
  });

  it('"1 identical update", not "1 identical updates"', () => {
    const ev: TraceEvent[] = [relist(10), listed(11, 1), identical(20, 'default/a')];
    const [f] = computeFindings(header({ profile: 'v1.15' }), numbered(ev)).filter((x) => x.id === 'identical-updates-after-relist');
    assert.ok(f);
    assert.equal(f.title, '1 identical update after the relist at t=0s');
  });

  it('a relist storm whose LISTs were refused says how many, with the summary\'s count', () => {
    const ev: TraceEvent[] = [listed(0, 3)];
    // Relists 1..5: each LIST refused (the apiserver is down); the 6th lists.
    for (let i = 0; i < 5; i++) ev.push(relist(1000 * (i + 1), i === 0 ? 6 : 7), { t: 1000 * (i + 1) + 1, type: 'list.error', text: 'connection refused' });
    ev.push(relist(7000, 7), listed(7001, 3));
    const events = numbered(ev);
    const s = SummaryModel.of(events).snapshot();
    assert.equal(s.relists, 6);
    assert.equal(s.relistsListRefused, 5);
    assert.equal(s.lists, 2);
    const storm = computeFindings(header({ profile: 'v1.15' }), events).find((f) => f.id === 'relist-storm');
    assert.ok(storm);
    assert.doesNotMatch(storm.detail, /Every relist is a full LIST/);
    assert.match(storm.detail, /5 relists had the LIST refused/);
    assert.match(storm.detail, /1 relist completed a full LIST/);
  });
});
