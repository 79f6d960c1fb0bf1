import { strict as assert } from 'node:assert';
import { newReflectorBackoff, jitter } from '../../../src/engine/backoff';
import { FakeClock } from '../../../src/engine/clock';

const bases = (steps: { baseMs: number }[]): number[] => steps.map((s) => s.baseMs);

describe('reflector backoff (§1.2)', () => {
  it('jitter 1.0 spreads a delay over [d, 2d)', () => {
    assert.equal(jitter(800, 1, () => 0), 800);
    assert.equal(jitter(800, 1, () => 0.5), 1200);
    assert.equal(jitter(800, 0, () => 0.5), 1200, 'a factor ≤ 0 counts as 1');
  });

  for (const mode of ['quiet-reset', 'delay-with-reset'] as const) {
    it(`${mode}: 0.8, 1.6, 3.2, 6.4, 12.8, 25.6 s, then capped at 30 s`, () => {
      const clock = new FakeClock();
      const b = newReflectorBackoff({ backoff: mode }, clock, () => 0.25);
      const steps = Array.from({ length: 9 }, () => b.step());
      assert.deepEqual(bases(steps), [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
      assert.equal(steps[0].sleepMs, 1000);
      assert.equal(steps[8].sleepMs, 37500);
      assert.ok(steps.every((s) => !s.reset));
    });
  }

  it('quiet-reset (≤v0.35) resets only after a gap of more than 2 min between two delays', async () => {
    const clock = new FakeClock();
    const b = newReflectorBackoff({ backoff: 'quiet-reset' }, clock, () => 0);
    const seen: { baseMs: number; reset: boolean }[] = [];
    // A failure every 60 s for 5 min: the delay keeps growing, never resets.
    for (let i = 0; i < 6; i++) {
      seen.push(b.step());
      await clock.advance(60_000);
    }
    assert.deepEqual(bases(seen), [800, 1600, 3200, 6400, 12800, 25600]);
    await clock.advance(121_000);
    const after = b.step();
    assert.deepEqual([after.baseMs, after.reset], [800, true]);
  });

  it('delay-with-reset (v0.36) restarts the sequence every 2 min after the previous reset, even under continuous failures', async () => {
    const clock = new FakeClock();
    const b = newReflectorBackoff({ backoff: 'delay-with-reset' }, clock, () => 0);
    const seen: { baseMs: number; reset: boolean }[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push(b.step());
      await clock.advance(30_000);
    }
    // t = 0, 30, 60, 90, 120 s: no reset (not > 2 min); t = 150 s: more than 2 min since construction.
    assert.deepEqual(bases(seen), [800, 1600, 3200, 6400, 12800, 800]);
    assert.deepEqual(seen.map((s) => s.reset), [false, false, false, false, false, true]);
  });

  it('fixed-1s (≤1.17 wait.Until): always exactly 1 s', () => {
    const b = newReflectorBackoff({ backoff: 'fixed-1s' }, new FakeClock(), () => 0.9);
    assert.deepEqual([b.step(), b.step()].map((s) => s.sleepMs), [1000, 1000]);
  });
});
