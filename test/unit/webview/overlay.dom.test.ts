/**
 * Drawing checks under happy-dom for defects seen in screenshots: axis labels clipped at the
 * plot's edges, and the cache-check mark drawn under a relist's triangle.
 */
import { strict as assert } from 'node:assert';
import { GlobalRegistrator } from '@happy-dom/global-registrator';
import { numbered } from './fixture';
/* eslint-disable @typescript-eslint/no-require-imports -- modules that need the DOM load after happy-dom registers */

type Call = { name: string; args: number[] };

describe('webview drawing: axis edges, marks that stay apart (happy-dom)', () => {
  before(() => GlobalRegistrator.register());
  after(async () => GlobalRegistrator.unregister());

  it('axis labels at the plot\'s edges are anchored inwards, so none is clipped', () => {
    const d3 = (require('d3') as typeof import('d3'));
    const { drawAxis } = (require('../../../webview/render/overlay') as typeof import('../../../webview/render/overlay'));
    const svg = d3.select(document.body).append('svg').attr('width', 600);
    const g = svg.append('g');
    const x = d3.scaleLinear().domain([0, 10_000]).range([0, 600]);
    drawAxis(g as never, x, 600);
    const ticks = [...(g.node() as SVGGElement).querySelectorAll('.tick')];
    const anchors = ticks.map((t) => t.querySelector('text')?.getAttribute('text-anchor'));
    const texts = ticks.map((t) => t.querySelector('text')?.textContent);
    assert.equal(texts[0], '+0 ms');
    assert.equal(anchors[0], 'start', 'the first label starts at the left edge');
    assert.equal(texts[texts.length - 1], '+10 s');
    assert.equal(anchors[anchors.length - 1], 'end', 'the last label ends at the right edge');
    assert.ok(anchors.slice(1, -1).every((a) => a === 'middle'));
    // A compare view's axis reads shared time: for a session that started 1 s later, its own
    // 1 s (x = 60 px) is the shared "+2 s", a round tick.
    const g2 = svg.append('g');
    drawAxis(g2 as never, x, 600, 1000);
    const first = (g2.node() as SVGGElement).querySelector('.tick');
    assert.equal(first?.querySelector('text')?.textContent, '+2 s');
    assert.match(first?.getAttribute("transform") ?? "", /^translate\(60(\.\d+)?,/);
  });

  it('a cache check at the moment of a relist is drawn clear of the relist\'s triangle, in both lane heights', () => {
    const { TimelineData } = (require('../../../webview/model/timelineData') as typeof import('../../../webview/model/timelineData'));
    const { drawLanes } = (require('../../../webview/render/canvasLanes') as typeof import('../../../webview/render/canvasLanes'));
    const { laneBands } = (require('../../../webview/render/layout') as typeof import('../../../webview/render/layout'));
    const { readPalette } = (require('../../../webview/render/palette') as typeof import('../../../webview/render/palette'));
    const d3 = (require('d3') as typeof import('d3'));
    const data = new TimelineData();
    data.append(
      numbered([
        { t: 0, type: 'list.done', rv: '1', items: 1, pages: 1, paginated: false, durationMs: 1 },
        { t: 500, type: 'relist', reason: 'Expired', row: 9, rv: '1', consistent: false, text: 'gone' },
        { t: 500, type: 'consistency.check', rv: '2', cachedObjects: 1, serverObjects: 1, missing: [], extra: [], rvMismatch: [], rounds: 1 } as never,
        { t: 1000, type: 'list.done', rv: '3', items: 1, pages: 1, paginated: false, durationMs: 1 },
      ]),
    );
    for (const compact of [false, true]) {
      const calls: Call[] = [];
      const ctx = new Proxy({} as Record<string, unknown>, {
        get: (t, k: string) => (k in t ? t[k] : (...args: number[]) => calls.push({ name: String(k), args })),
        set: (t, k, v) => ((t[k as string] = v), true),
      });
      const bands = laneBands(data, 0, compact);
      const marks = bands.find((b) => b.id === 'marks')!;
      const x = d3.scaleLinear().domain([0, 1000]).range([0, 1000]);
      drawLanes({ ctx: ctx as never, data, x: x as never, width: 1000, palette: readPalette() }, bands);
      // The relist triangle: the moveTo/lineTo path starting at the relist's x on the band's top.
      const tri = calls.findIndex((c) => c.name === 'moveTo' && Math.abs(c.args[0] - (500 - 6)) < 1e-6 && c.args[1] === marks.y);
      assert.ok(tri >= 0, 'the relist triangle is drawn');
      const triBottom = Math.max(...calls.slice(tri, tri + 3).map((c) => c.args[1]));
      const frame = calls.find((c) => c.name === 'strokeRect' && Math.abs(c.args[0] - (500 - 3.5)) < 1e-6);
      assert.ok(frame, 'the cache check frame is drawn');
      const frameTop = frame.args[1];
      assert.ok(frameTop > triBottom, `compact=${compact}: the frame (top ${frameTop}) is under the triangle (bottom ${triBottom}), not behind it`);
      assert.ok(frameTop + frame.args[3] <= marks.y + marks.height, 'the frame stays inside the marks lane');
    }
  });
});
