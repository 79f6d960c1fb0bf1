import { strict as assert } from 'node:assert';
import { DEFAULT_PROFILE } from '../../../src/engine/profiles';
import { STORYLINES } from '../../../src/sources/sandbox';
import { parseAutostart } from '../../../src/vscode/autostartRequest';

describe('parseAutostart (INFORMER_INSPECTOR_AUTOSTART)', () => {
  it('absent or empty means nothing to open', () => {
    assert.deepEqual(parseAutostart(undefined), { kind: 'none' });
    assert.deepEqual(parseAutostart('  '), { kind: 'none' });
  });

  it('"cluster" opens the normal Inspect flow', () => {
    assert.deepEqual(parseAutostart('cluster'), { kind: 'cluster' });
  });

  it('"sandbox:<storyline>" inspects configmaps in all namespaces with the default profile', () => {
    for (const name of STORYLINES) {
      assert.deepEqual(parseAutostart(`sandbox:${name}`), {
        kind: 'sandbox',
        storyline: name,
        resource: 'configmaps',
        namespace: '',
        profile: DEFAULT_PROFILE,
      });
    }
  });

  it('an unknown storyline or value is reported, naming what is accepted', () => {
    const r = parseAutostart('sandbox:nope');
    assert.equal(r.kind, 'invalid');
    assert.match(r.kind === 'invalid' ? r.message : '', /unknown sandbox storyline "nope".*restart-storm/);
    const other = parseAutostart('sandbox');
    assert.equal(other.kind, 'invalid');
    assert.match(other.kind === 'invalid' ? other.message : '', /neither "cluster" nor "sandbox:<storyline>"/);
  });
});
