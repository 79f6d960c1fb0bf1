import { strict as assert } from 'node:assert';
import { DELTA_TYPES, REFLECTOR_STATES } from '../../../webview/model/codes';
import { cssColour, DELTA_COLOURS, resolveColour, STATE_COLOURS } from '../../../webview/model/colours';
import { legendGroups } from '../../../webview/model/legend';
import { MARK_STYLES, rowText } from '../../../webview/model/marks';
import { MarkKind } from '../../../webview/model/codes';
import { SUMMARY_CHIP_HELP } from '../../../webview/model/summary';

describe('webview model: colours', () => {
  it('writes a chain as nested var()s ending at the editor foreground, never a literal colour', () => {
    assert.equal(cssColour(['charts-red']), 'var(--vscode-charts-red, var(--vscode-editor-foreground))');
    assert.equal(
      cssColour(['disabledForeground', 'charts-lines']),
      'var(--vscode-disabledForeground, var(--vscode-charts-lines, var(--vscode-editor-foreground)))',
    );
    assert.equal(cssColour(['editor-foreground']), 'var(--vscode-editor-foreground)');
  });

  it('resolves the first variable the theme sets, else the fallback', () => {
    const theme: Record<string, string> = { 'charts-lines': ' #888 ' };
    const lookup = (n: string) => theme[n] ?? '';
    assert.equal(resolveColour(STATE_COLOURS.stopped, lookup, 'fg'), '#888');
    assert.equal(resolveColour(['charts-red'], lookup, 'fg'), 'fg');
  });
});

describe('webview model: legend', () => {
  const groups = legendGroups();
  const byTitle = (t: string) => groups.find((g) => g.title === t)!;

  it('lists every reflector state with the colour its lane uses', () => {
    const states = byTitle('Reflector').entries;
    assert.deepEqual(states.map((e) => e.label), [...REFLECTOR_STATES]);
    for (const e of states) assert.deepEqual(e.colour, STATE_COLOURS[e.label as (typeof REFLECTOR_STATES)[number]]);
  });

  it('names every counted delta type once; types sharing a colour share one swatch', () => {
    const entries = byTitle('Deltas').entries;
    const named = entries.flatMap((e) => e.label.split(' / '));
    assert.deepEqual([...named].sort(), [...DELTA_TYPES].sort());
    assert.deepEqual(entries.map((e) => e.label), ['Added', 'Updated', 'Deleted', 'Replaced / ReplacedAll', 'Sync / SyncAll']);
    for (const e of entries) for (const d of e.label.split(' / ')) assert.deepEqual(e.colour, DELTA_COLOURS[d as (typeof DELTA_TYPES)[number]]);
    const colours = entries.map((e) => e.colour.join());
    assert.equal(new Set(colours).size, colours.length, 'two delta swatches look the same');
    assert.match(entries[3].description, /^Replaced \/ ReplacedAll delta: .+\.$/);
  });

  it('names every mark the marks lane draws, with the shape and colour the lane uses', () => {
    const marks = byTitle('Marks').entries;
    for (const k of Object.values(MarkKind).filter((v): v is MarkKind => typeof v === 'number')) {
      const style = MARK_STYLES[k];
      const e = marks.find((m) => m.label === style.label);
      assert.ok(e, `legend lacks ${style.label}`);
      assert.equal(e.shape, style.shape);
      assert.deepEqual(e.colour, style.colour);
    }
    for (const label of ['bookmark', 'synced', 'relist', 'fault', 'identical update', 'tombstone']) assert.ok(marks.some((m) => m.label === label), label);
    const looks = marks.map((m) => `${m.shape}|${m.colour.join()}`);
    assert.equal(new Set(looks).size, looks.length, 'two marks look the same');
  });

  it('backoff, fault, Sync, bookmark and tombstone differ in colour, and the point marks in shape too', () => {
    const tombstone = byTitle('Marks').entries.find((m) => m.label === 'tombstone')!;
    const colours = [STATE_COLOURS.backoff, MARK_STYLES[MarkKind.Fault].colour, DELTA_COLOURS.Sync, MARK_STYLES[MarkKind.Bookmark].colour, tombstone.colour].map((c) => c.join());
    assert.equal(new Set(colours).size, colours.length, colours.join(' ; '));
    const shapes = [MARK_STYLES[MarkKind.Fault].shape, MARK_STYLES[MarkKind.Bookmark].shape, tombstone.shape, MARK_STYLES[MarkKind.Resync].shape, MARK_STYLES[MarkKind.Synced].shape];
    assert.equal(new Set(shapes).size, shapes.length, shapes.join(' ; '));
  });

  it('a classification row is explained in words', () => {
    assert.equal(rowText(7), '7: the LIST failed (refused or any other error); back off and relist');
    assert.equal(rowText(99), '99');
  });

  it('gives every entry a one-sentence description', () => {
    for (const g of groups) for (const e of g.entries) assert.match(e.description, /^[A-Z].*\.$/, `${g.title} ${e.label}: "${e.description}"`);
  });
});

describe('webview model: header chip help', () => {
  it('says in one sentence what each chip counts', () => {
    for (const key of ['relists', 'identical', 'tombstones', 'rv', 'fifo', 'synced', 'lists', 'watches', 'findings'] as const) {
      const help = SUMMARY_CHIP_HELP[key];
      assert.match(help, /^[A-Z][^.]*(\([^)]*\)[^.]*)*\.$/, `${key}: "${help}"`);
    }
  });
});
