/**
 * Cluster-supplied strings reach the webview only as text. Two guards:
 * - DOM level (happy-dom): the real details, findings and summary renderers get
 *   an object name, diff paths/values, error texts and finding texts that are HTML payloads;
 *   no element may be created from them, and each must read back verbatim as text;
 * - source level: no HTML-parsing sink (innerHTML, insertAdjacentHTML, d3's .html(), …) anywhere
 *   in webview/, so a later change cannot route cluster data through one unnoticed.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GlobalRegistrator } from '@happy-dom/global-registrator';
import type { SessionInfo } from '../../../src/protocol/timeline';
import type { Finding } from '../../../src/format/trace';
import { eventDetails } from '../../../webview/model/details';
import { TimelineData } from '../../../webview/model/timelineData';
import { numbered } from '../webview/fixture';

type Panels = typeof import('../../../webview/render/panels');

/** The registered DOM's document (the root tsconfig has no DOM lib, by design: engine code must not use it). */
// happy-dom registers itself as the global DOM; the renderer is typed against the DOM lib's Document.
const dom = (): Document => (globalThis as unknown as { document: Document }).document;

const XSS = '<img src=x onerror="globalThis.__pwned=1">';
const SCRIPT = '</pre><script>globalThis.__pwned=2</script>';
const SVG = '<svg onload="globalThis.__pwned=3"></svg>';

/** Elements that only markup parsing of the payloads above could have created. */
const INJECTED = 'img, script, svg, iframe, [onerror], [onload]';

function hostileTrace() {
  return numbered([
    { t: 0, type: 'request', verb: 'list', rv: '0', limit: 500, continue: XSS },
    { t: 1, type: 'list.error', text: `secrets "${XSS}" is forbidden`, code: 403, reason: SVG },
    { t: 2, type: 'relist', reason: 'ListFailed', row: 18, rv: '5', consistent: false, text: SCRIPT },
    { t: 3, type: 'request', verb: 'watch', rv: '5', allowWatchBookmarks: true },
    { t: 4, type: 'watch.end', row: 17, outcome: 'relist', durationMs: 3, eventCount: 1, how: 'error-event', error: XSS, watchList: false },
    {
      t: 5, type: 'distribute', op: 'update', key: `prod/${XSS}`, isSync: false, delivered: 1, skipped: 0, change: 'other',
      diff: [{ path: `metadata.labels["${SVG}"]`, old: XSS, new: { nested: SCRIPT } }], oldRv: '4', rv: '6',
    },
    { t: 5, type: 'notify', handler: XSS, op: 'update', key: `prod/${XSS}`, rv: '6', oldRv: '4', isSync: false, pending: 0 },
    { t: 6, type: 'watch.event', eventType: 'ADDED', key: XSS, rv: '7', accepted: false, skipped: SCRIPT },
    { t: 7, type: 'consistency.check', rv: '8', missing: [XSS], extra: [SVG], rvMismatch: [{ key: SCRIPT, cached: '1', server: XSS }] },
  ]);
}

describe('security: the webview renders cluster data as text only', () => {
  let panels: Panels;

  before(async function () {
    this.timeout(20_000);
    GlobalRegistrator.register();
    // Loaded after the DOM globals exist: the web components it imports register themselves on load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    panels = require('../../../webview/render/panels') as Panels;
  });
  after(async () => {
    await GlobalRegistrator.unregister();
  });

  function assertInert(host: Parameters<Panels['renderDetails']>[0], mustShow: readonly string[]): void {
    assert.equal(host.querySelectorAll(INJECTED).length, 0, host.innerHTML);
    for (const s of mustShow) assert.ok(host.textContent?.includes(s), `shown verbatim as text: ${s}\n${host.textContent}`);
    assert.equal((globalThis as { __pwned?: number }).__pwned, undefined);
  }

  it('the details pane of every event kind that carries cluster strings', () => {
    const data = new TimelineData();
    const events = hostileTrace();
    data.append(events);
    for (const e of events) {
      const host = dom().createElement('section');
      dom().body.append(host);
      panels.renderDetails(host, eventDetails(data, e));
      assertInert(host, []);
    }
    const host = dom().createElement('section');
    panels.renderDetails(host, eventDetails(data, events[5]));
    assertInert(host, [`prod/${XSS}`, XSS, SCRIPT, SVG]);
    // The payloads really reached the renderer (else "no element" would prove nothing).
    assert.ok(host.querySelectorAll('td').length >= 3);
  });

  it('findings and the summary header', () => {
    const findings: Finding[] = [
      { id: 'x', severity: 'warning', title: XSS, detail: SCRIPT, advice: SVG, evidence: [1], link: `javascript:alert(1)//${XSS}` },
    ];
    const f = dom().createElement('section');
    panels.renderFindings(f, findings, () => undefined, () => undefined);
    assertInert(f, [XSS, SCRIPT, SVG]);
    assert.equal(f.querySelectorAll('a[href]').length, 0, 'links are buttons handled by the host, never hrefs');

    // (The session picker is a vscode-single-select, which happy-dom cannot construct: it needs
    // ElementInternals. Its option texts are set with textContent, which the source check guards.)
    const session: SessionInfo = { id: 's1', title: XSS, live: true, simulated: true };
    const summaryHost = dom().createElement('header');
    panels.renderSummary(
      summaryHost,
      {
        state: XSS, relists: 1, relistsByReason: [[SCRIPT, 1]], identicalUpdates: 0, identicalShare: 0, updates: 0, tombstones: 0,
        currentRv: SVG, fifoKeys: 0, fifoDeltas: 0, synced: true, lists: 1, watches: 1, events: 9, dropped: 0, relistsListRefused: 0,
        staleWindows: [{ key: XSS, fromT: 0, toT: 5, revealedBy: 'check', revealSeq: 1 }],
      } as unknown as Parameters<Panels['renderSummary']>[1],
      1,
      session,
    );
    assertInert(summaryHost, [XSS, SCRIPT, SVG]);
  });

  it('no HTML-parsing sink exists anywhere in webview/', () => {
    const sinks = /\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|\.html\(|document\.write|srcdoc|DOMParser|createContextualFragment|\beval\(|new Function\(/;
    const root = join(__dirname, '..', '..', '..', 'webview');
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    walk(root);
    assert.ok(files.length >= 10, `found the webview sources: ${files.length}`);
    const hits = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ f, i, line }))
        .filter((x) => sinks.test(x.line) && !/^\s*(\*|\/\/)/.test(x.line)),
    );
    assert.deepEqual(hits.map((h) => `${h.f}:${h.i + 1}: ${h.line.trim()}`), []);
  });
});
