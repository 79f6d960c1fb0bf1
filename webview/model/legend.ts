/**
 * What the legend says: each colour (and mark shape) the lanes use, with its meaning, built from
 * the same colour table as the canvas (model/colours.ts). Types that share a colour share one
 * entry ("Replaced / ReplacedAll"), so the legend never shows two swatches that look the same.
 */
import { DELTA_TYPES, REFLECTOR_STATES } from './codes';
import { MarkKind } from './codes';
import { MARK_STYLES, type MarkShape } from './marks';
import {
  DELTA_COLOURS,
  IDENTICAL_COLOUR,
  STATE_COLOURS,
  TOMBSTONE_COLOUR,
  DEPTH_DELTAS_COLOUR,
  DEPTH_KEYS_COLOUR,
  type ColourChain,
} from './colours';

/** How the swatch is drawn: the shape the lane draws (model/marks.ts). */
export type SwatchShape = MarkShape;

export interface LegendEntry {
  label: string;
  /** One sentence for the tooltip and the accessible description. */
  description: string;
  colour: ColourChain;
  shape: SwatchShape;
}

export interface LegendGroup {
  title: string;
  entries: LegendEntry[];
}

const STATE_HELP: Record<(typeof REFLECTOR_STATES)[number], string> = {
  listing: 'The reflector is LISTing the resource.',
  'watch-listing': 'The reflector is streaming the initial list over a watch (watch-list).',
  watching: 'The reflector is watching for changes.',
  backoff: 'The reflector is waiting before it retries after an error.',
  stopped: 'The reflector has stopped.',
  denied: 'The server refused the request (401/403/404); the reflector retries, but only fixed access or a created resource helps.',
};

const DELTA_HELP: Partial<Record<(typeof DELTA_TYPES)[number], string>> = {
  Added: 'an object appeared',
  Updated: 'an object changed',
  Deleted: 'an object was deleted',
  Replaced: 'a list (or relist) handed the object over again',
  Sync: 'a resync queued the object again',
  ReplacedAll: 'a list (or relist) handed the object over again',
  SyncAll: 'a resync queued the object again',
};

/** The marks lane's kinds in legend order: the loud ones first. */
const MARK_ORDER: readonly MarkKind[] = [
  MarkKind.Relist,
  MarkKind.Fault,
  MarkKind.List,
  MarkKind.WatchStart,
  MarkKind.WatchEnd,
  MarkKind.ListError,
  MarkKind.RestRetry,
  MarkKind.Bookmark,
  MarkKind.Resync,
  MarkKind.Consistency,
  MarkKind.Synced,
];

/** Entries with the same colour chain merged in order of first appearance, labels joined by " / ". */
function mergeByColour(entries: readonly LegendEntry[]): LegendEntry[] {
  const out: LegendEntry[] = [];
  for (const e of entries) {
    const same = out.find((o) => o.shape === e.shape && o.colour.join() === e.colour.join());
    if (!same) out.push({ ...e });
    else {
      same.label = `${same.label} / ${e.label}`;
      if (!same.description.includes(e.description)) same.description = `${same.description}; ${e.description}`;
    }
  }
  return out;
}

export function legendGroups(): LegendGroup[] {
  return [
    {
      title: 'Reflector',
      entries: REFLECTOR_STATES.map((s) => ({ label: s, description: STATE_HELP[s], colour: STATE_COLOURS[s], shape: 'block' })),
    },
    {
      title: 'Deltas',
      entries: mergeByColour(DELTA_TYPES.map((d) => ({ label: d, description: DELTA_HELP[d] ?? 'a change', colour: DELTA_COLOURS[d], shape: 'block' }))).map((e) => ({
        ...e,
        description: `${e.label} delta: ${e.description}.`,
      })),
    },
    {
      title: 'FIFO',
      entries: [
        { label: 'keys', description: 'Keys waiting in the FIFO (front area).', colour: DEPTH_KEYS_COLOUR, shape: 'block' },
        { label: 'deltas', description: 'Deltas waiting in the FIFO, all keys together (back area).', colour: DEPTH_DELTAS_COLOUR, shape: 'block' },
      ],
    },
    {
      title: 'Marks',
      entries: [
        ...MARK_ORDER.map((k) => ({ ...MARK_STYLES[k] })),
        { label: 'identical update', description: 'An update whose old and new objects are identical (handlers did work for nothing); the number over a bar counts them.', colour: IDENTICAL_COLOUR, shape: 'block' },
        { label: 'tombstone', description: 'A delete delivered as a tombstone (DeletedFinalStateUnknown): the final state was missed.', colour: TOMBSTONE_COLOUR, shape: 'diamond' },
      ],
    },
  ];
}
