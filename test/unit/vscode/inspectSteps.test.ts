import { strict as assert } from 'node:assert';
import { namespaceProblem, parseSelectors } from '../../../src/vscode/inspectInput';

describe('Inspect flow: the selectors step and typed namespaces', () => {
  it('one selectors step: a label selector, then "; " and a field selector', () => {
    assert.deepEqual(parseSelectors(''), {});
    assert.deepEqual(parseSelectors('app=web,tier!=db'), { labelSelector: 'app=web,tier!=db' });
    assert.deepEqual(parseSelectors('app=web; metadata.name=x'), { labelSelector: 'app=web', fieldSelector: 'metadata.name=x' });
    assert.deepEqual(parseSelectors(' ; metadata.namespace!=kube-system'), { fieldSelector: 'metadata.namespace!=kube-system' });
  });

  it('a typed namespace must be a valid name; it is kept as typed', () => {
    assert.equal(namespaceProblem('team-a'), undefined);
    assert.match(namespaceProblem('Team A') ?? '', /not a valid namespace name/);
    assert.match(namespaceProblem('-x') ?? '', /not a valid/);
  });
});
