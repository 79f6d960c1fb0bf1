import assert from 'node:assert/strict';
import { findProfile, withGates, type Profile } from '../../../src/engine/profiles';

function profile(name: string): Profile {
  const p = findProfile(name);
  assert.ok(p, `profile ${name}`);
  return p;
}

describe('withGates', () => {
  it('ignores gates the release does not know (conformance gate-inorder-informers-unknown-to-v132)', () => {
    const p = withGates(profile('v1.32'), { InOrderInformers: true, AtomicFIFO: true, WatchListClient: true });
    assert.equal(p.gates.InOrderInformers, false, 'client-go v0.32 has no InOrderInformers gate: DeltaFIFO stays');
    assert.equal(p.gates.AtomicFIFO, false);
    assert.equal(p.gates.WatchListClient, true, 'a known gate is applied');
  });

  it('lets v1.34 turn InOrderInformers off but not turn on the v0.36-only FIFO gates', () => {
    const p = withGates(profile('v1.34'), { InOrderInformers: false, AtomicFIFO: true, InOrderInformersBatchProcess: true });
    assert.equal(p.gates.InOrderInformers, false);
    assert.equal(p.gates.AtomicFIFO, false);
    assert.equal(p.gates.InOrderInformersBatchProcess, false);
  });

  it('ignores every gate on v1.15, which predates client-go feature gates', () => {
    const p = withGates(profile('v1.15'), { WatchListClient: true, InOrderInformers: true });
    assert.equal(p.gates.WatchListClient, false);
    assert.equal(p.gates.InOrderInformers, false);
  });

  it('keeps a gate locked in the release at its locked value, and applies the unlocked ones', () => {
    const p = withGates(profile('v1.36'), { InOrderInformers: false, AtomicFIFO: false, UnlockWhileProcessingFIFO: false });
    assert.equal(p.gates.InOrderInformers, true, 'InOrderInformers is GA-locked in v0.36');
    assert.equal(p.gates.AtomicFIFO, false);
    assert.equal(p.gates.UnlockWhileProcessingFIFO, false);
    assert.equal(p.gates.InOrderInformersBatchProcess, true, 'not overridden: default kept');
  });
});
