import { strict as assert } from 'node:assert';
import { FIXED_TRACKS, navigableLanes, tracksOf } from '../../../webview/model/tracks';
import { TimelineData } from '../../../webview/model/timelineData';
import { laneBands } from '../../../webview/render/layout';
import { cycleTrace } from './fixture';

describe('webview: the track registry is the one definition of lanes', () => {
  const data = new TimelineData();
  data.append(cycleTrace());

  it('bands and keyboard lanes come from the same tracks, with the same ids and labels, in order', () => {
    const bands = laneBands(data, 10);
    const tracks = tracksOf(data);
    assert.deepEqual(
      bands.map((b) => [b.id, b.label, b.height]),
      tracks.map((t) => [t.id, t.label, t.height]),
    );
    const lanes = navigableLanes(data);
    const withRows = tracks.filter((t) => t.rows(data) !== undefined);
    assert.deepEqual(
      lanes.map((l) => [l.id, l.label]),
      withRows.map((t) => [t.id, t.label]),
    );
    assert.ok(!lanes.some((l) => l.id === 'depth'), 'the depth area has no events to step through');
    assert.ok(lanes.some((l) => l.id === 'handler:main' && l.label === 'Handler main' && l.length === data.handlers.get('main')?.length && l.length > 0));
  });

  it('ids are unique and bands do not overlap', () => {
    const ids = FIXED_TRACKS.map((t) => t.id);
    assert.equal(new Set(ids).size, ids.length);
    const bands = laneBands(data);
    for (let i = 1; i < bands.length; i++) assert.ok(bands[i].y >= bands[i - 1].y + bands[i - 1].height);
  });
});
