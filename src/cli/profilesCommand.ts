/** `informer-inspector profiles`: the emulated client-go lines and what each changes. */
import { DEFAULT_PROFILE, PROFILES } from '../app/profiles';
import type { Profile } from '../engine/profiles';
import { jsonOutput, jsonText, parseCommandArgs } from './args';
import { EXIT_OK, type CliIo } from './io';

export function profilesCommand(args: string[], io: CliIo): number {
  const parsed = parseCommandArgs('profiles', args, {}, 0);
  if (jsonOutput(parsed)) {
    io.stdout(jsonText(PROFILES.map((p) => ({ default: p.name === DEFAULT_PROFILE, ...p }))));
    return EXIT_OK;
  }
  io.stdout(PROFILES.map(describeProfile).join('\n'));
  io.stdout('\nSee docs/profiles.md for the spec section behind each switch.\n');
  return EXIT_OK;
}

function describeProfile(p: Profile): string {
  const gates = Object.entries(p.gates)
    .map(([g, on]) => `${g}=${on}`)
    .join(' ');
  const lines = [
    `${p.name}${p.name === DEFAULT_PROFILE ? ' (default)' : ''}  client-go ${p.clientGo}, Kubernetes ${p.kubernetes}`,
    `  ${p.summary}`,
    `  gates: ${gates}`,
    `  FIFO: ${p.gates.InOrderInformers ? (p.gates.AtomicFIFO ? 'RealFIFO (atomic)' : 'RealFIFO') : p.replaceEmitsReplaced ? 'DeltaFIFO (Replaced)' : 'DeltaFIFO (Replace emits Sync)'}; initial sync: ${p.gates.WatchListClient ? 'watch-list stream' : 'paginated LIST'}`,
    `  backoff: ${p.backoff}; refused watch start relists: ${p.refusedWatchRelists}; 429 re-watches: ${p.tooManyRequestsRewatches}; relist at RV "0": ${p.relistAtZero}`,
    `  sync rule: ${p.syncRule}; isInInitialList: ${p.hasInitialListFlag}; RV ordering guard: ${p.rvOrderingGuard}; log style: ${p.logStyle}`,
  ];
  return lines.join('\n') + '\n';
}
