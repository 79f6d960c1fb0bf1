/**
 * The compare view's one zoom while its informers are live (webview/compareApp.ts with its
 * TimelineViews under happy-dom): the live groups' `now` moves between a zoom and the frame that
 * draws it, batches and clock ticks come per group, frames fall anywhere in between; after every
 * frame all groups show the same window of shared time.
 */
import { strict as assert } from 'node:assert';
import { underDom } from './dom';
import { ClockNotification, DeltaNotification, SnapshotNotification, type SessionInfo } from '../../../src/protocol/timeline';
import type { RecordedEvent } from '../../../src/format/events';
import type { TraceHeader } from '../../../src/format/trace';
import { SummaryModel } from '../../../src/trace/summary';
import { seededRand } from '../../../src/sources/seededRand';
import { cycleTrace } from './fixture';

type CompareModule = typeof import('../../../webview/compareApp');
type App = InstanceType<CompareModule['CompareApp']>;

const header = (profile: string, startedAt: string): TraceHeader =>
  ({ format: 'informer-trace/v1', profile, resource: { group: '', version: 'v1', resource: 'configmaps' }, startedAt, source: 'sandbox' }) as unknown as TraceHeader;
const OLD: SessionInfo = { id: 'old', title: 'configmaps (all namespaces, v1.15) SIMULATED', live: true, simulated: true };
const NEW: SessionInfo = { id: 'new', title: 'configmaps (all namespaces, v1.36) SIMULATED', live: true, simulated: true };

interface Plot {
  dispatchEvent(e: unknown): boolean;
}
interface DomWindow {
  MouseEvent: new (type: string, init: Record<string, unknown>) => unknown;
  requestAnimationFrame(cb: () => void): unknown;
}
const dom = () => globalThis as unknown as DomWindow & { document: { createElement(t: string): unknown; body: { append(e: unknown): void } } };

/** A plot's width in px under happy-dom (no layout: the view's least width). */
const PLOT_PX = 100;

/** Lets every frame asked for so far run (happy-dom runs animation frames as immediates, in order). */
async function frames(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => dom().requestAnimationFrame(() => r()));
}

/** A wheel turn over a group's plot at x (px from its left), as a user zooms in (dy < 0) or out. */
function wheel(app: App, group: number, x: number, dy: number): void {
  // happy-dom's WheelEvent has no pointer position: a MouseEvent named "wheel" with the deltas d3-zoom reads.
  const e = new (dom().MouseEvent)('wheel', { clientX: x, clientY: 20, bubbles: true, cancelable: true, view: globalThis });
  Object.defineProperties(e, { deltaY: { value: dy }, deltaMode: { value: 0 } });
  plotOf(app, group).dispatchEvent(e);
}

/** A drag (pan) over a group's plot by dx px. */
function drag(app: App, group: number, x: number, dx: number): void {
  const plot = plotOf(app, group);
  const M = dom().MouseEvent;
  plot.dispatchEvent(new M('mousedown', { clientX: x, clientY: 20, button: 0, bubbles: true, cancelable: true, view: globalThis }));
  const win = globalThis as unknown as Plot;
  win.dispatchEvent(new M('mousemove', { clientX: x + dx, clientY: 20, bubbles: true, cancelable: true, view: globalThis }));
  win.dispatchEvent(new M('mouseup', { clientX: x + dx, clientY: 20, button: 0, bubbles: true, cancelable: true, view: globalThis }));
}

function plotOf(app: App, group: number): Plot {
  const section = (app.groups[group].head as unknown as { parentElement: { querySelector(s: string): Plot } }).parentElement;
  return section.querySelector('.plot');
}

/** Each group's window in shared time. */
function windows(app: App): [number, number][] {
  return app.groups.map((g) => {
    const [a, b] = g.view.window();
    return [a + g.axis.offset, b + g.axis.offset];
  });
}

function assertOneWindow(app: App, what: string): void {
  const [first, ...rest] = windows(app);
  for (const w of rest) {
    assert.ok(Math.abs(w[0] - first[0]) < 1e-6 && Math.abs(w[1] - first[1]) < 1e-6, `${what}: ${JSON.stringify(first)} vs ${JSON.stringify(w)}`);
  }
}

describe('webview compare view: one zoom for live groups (happy-dom)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = underDom(() => require('../../../webview/compareApp') as CompareModule);

  /** Two live sessions started 300 ms apart (wall clock), both drawn once. */
  async function live(): Promise<{ app: App; events: RecordedEvent[]; now: number[] }> {
    const doc = dom().document;
    const root = doc.createElement('div');
    doc.body.append(root);
    const app = new (mod().CompareApp)({ postMessage: () => undefined, getState: () => undefined, setState: () => undefined }, root as never);
    const events = cycleTrace();
    const now = [20_000, 20_000];
    const snap = (s: SessionInfo, h: TraceHeader, nowT: number) =>
      SnapshotNotification.create({ session: s, header: h, events, findings: [], sessions: [OLD, NEW], summary: SummaryModel.of(events).snapshot(), nowT });
    app.handle(snap(OLD, header('v1.15', '2026-01-01T00:00:00.000Z'), now[0]));
    app.handle(snap(NEW, header('v1.36', '2026-01-01T00:00:00.300Z'), now[1]));
    await frames();
    return { app, events, now };
  }

  it('a wheel zoom while following, with a clock tick between the last frame and the wheel, shows one window in both groups', async () => {
    const { app, now } = await live();
    assertOneWindow(app, 'following, before the zoom');
    // The moment under the pointer as drawn (happy-dom lays nothing out: a plot is 100 px wide).
    const [[d0, d1]] = windows(app);
    const under = d0 + ((d1 - d0) * 60) / PLOT_PX;
    // The live end moves (a heartbeat of one session) and the wheel turns before the frame that draws it.
    now[0] += 700;
    app.handle(ClockNotification.create({ sessionId: 'old', nowT: now[0] }));
    wheel(app, 0, 60, -400);
    await frames();
    assert.equal(app.groups[0].view.following, false, 'a wheel zoom stops following');
    assert.equal(app.groups[1].view.following, false, 'in every group');
    assertOneWindow(app, 'after the zoom');
    const [[a, b]] = windows(app);
    assert.ok(b - a < (d1 - d0) / 1.5, `the wheel zoomed in: ${a}..${b} from ${d0}..${d1}`);
    // The wheel zooms about the moment that was under the pointer on screen, not one the later axis would put there.
    assert.ok(Math.abs(a + ((b - a) * 60) / PLOT_PX - under) < 1e-6, `${under} ms stays under the pointer: ${a}..${b}`);
    // The live ends keep moving: the window chosen stays where it is, the same in both.
    now[1] += 1500;
    app.handle(ClockNotification.create({ sessionId: 'new', nowT: now[1] }));
    await frames();
    assertOneWindow(app, 'after the next tick');
    assert.deepEqual(windows(app)[0], [a, b], 'the chosen window stays');
  });

  it('the toolbar\'s zoom while not following, after a batch moved the end, shows one window in both groups', async () => {
    const { app, events, now } = await live();
    (app as unknown as { setFollow(f: boolean): void }).setFollow(false);
    await frames();
    now[1] += 900;
    app.handle(DeltaNotification.create({ sessionId: 'new', afterSeq: events[events.length - 1].seq, events: [], live: true, nowT: now[1] }));
    app.groups[0].view.zoomBy(2);
    await frames();
    assertOneWindow(app, 'after the zoom');
  });

  it('any interleaving of ticks, batches, wheel, drag, keys and frames leaves one window after each frame', async function () {
    this.timeout(60_000);
    for (let seed = 1; seed <= 40; seed++) {
      const { app, events, now } = await live();
      const rnd = seededRand(seed);
      const log: string[] = [];
      for (let step = 0; step < 40; step++) {
        const g = Math.floor(rnd() * 2);
        const r = rnd();
        if (r < 0.25) {
          now[g] += Math.round(rnd() * 1200);
          app.handle(ClockNotification.create({ sessionId: g === 0 ? 'old' : 'new', nowT: now[g] }));
          log.push(`tick ${g}`);
        } else if (r < 0.4) {
          now[g] += Math.round(rnd() * 800);
          app.handle(DeltaNotification.create({ sessionId: g === 0 ? 'old' : 'new', afterSeq: events[events.length - 1].seq, events: [], live: true, nowT: now[g] }));
          log.push(`batch ${g}`);
        } else if (r < 0.55) {
          const x = Math.round(rnd() * 100);
          const dy = rnd() < 0.7 ? -300 : 300;
          wheel(app, g, x, dy);
          log.push(`wheel ${g} ${x} ${dy}`);
        } else if (r < 0.62) {
          drag(app, g, 50, Math.round(rnd() * 40 - 20));
          log.push(`drag ${g}`);
        } else if (r < 0.68) {
          app.groups[g].view.zoomBy(rnd() < 0.5 ? 2 : 0.5);
          log.push(`zoomBy ${g}`);
        } else if (r < 0.72) {
          (app as unknown as { setFollow(f: boolean): void }).setFollow(rnd() < 0.5);
          log.push('follow');
        } else {
          await frames();
          assertOneWindow(app, `seed ${seed}: ${log.join(', ')}`);
          log.push('frame');
        }
      }
      await frames();
      assertOneWindow(app, `seed ${seed} at the end: ${log.join(', ')}`);
    }
  });
});
