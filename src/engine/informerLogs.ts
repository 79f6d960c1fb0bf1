/**
 * The log lines the shared informer prints, as 'log' trace events, in the style of the emulated
 * client-go line: structured `logger.Info("Warning: …", kv…)` from v0.33, printf-style
 * `klog.Warningf(…)` before (profile.logStyle).
 */
import type { Clock } from './clock';
import type { TraceEvent } from '../format/events';
import type { Profile } from './profiles';

export class InformerLog {
  constructor(
    private readonly profile: Profile,
    private readonly clock: Clock,
    private readonly emit: (e: TraceEvent) => void,
  ) {}

  runTwice(): void {
    this.line('Warning: the sharedIndexInformer has started, run more than once is not allowed', {}, 'The sharedIndexInformer has started, run more than once is not allowed');
  }

  resyncTooSmall(periodMs: number, minimumMs: number): void {
    const [p, m] = [goDuration(periodMs), goDuration(minimumMs)];
    this.line(
      'Warning: resync period is too small. Changing it to the minimum allowed value',
      { resyncPeriod: p, minimumResyncPeriod: m },
      `resyncPeriod ${p} is too small. Changing it to the minimum allowed value of ${m}`,
    );
  }

  resyncBelowCheckAfterStart(periodMs: number, checkMs: number): void {
    const [p, c] = [goDuration(periodMs), goDuration(checkMs)];
    this.line(
      'Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period',
      { resyncPeriod: p, resyncCheckPeriod: c },
      `resyncPeriod ${p} is smaller than resyncCheckPeriod ${c} and the informer has already started. Changing it to ${c}`,
    );
  }

  resyncUnsupported(desiredMs: number): void {
    const d = goDuration(desiredMs);
    this.line(
      "Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing",
      { desired: d },
      `The specified resyncPeriod ${d} is invalid because this shared informer doesn't support resyncing`,
    );
  }

  resyncIncreased(desiredMs: number, checkMs: number): void {
    const [d, c] = [goDuration(desiredMs), goDuration(checkMs)];
    this.line(
      'Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod',
      { desired: d, resyncCheckPeriod: c },
      `The specified resyncPeriod ${d} is being increased to the minimum resyncCheckPeriod ${c}`,
    );
  }

  private line(structured: string, kv: Record<string, string>, printf: string): void {
    const t = this.clock.now();
    if (this.profile.logStyle === 'printf') this.emit({ t, type: 'log', level: 'warning', msg: printf });
    else this.emit({ t, type: 'log', level: 'info', msg: structured, kv });
  }
}

/** Go's time.Duration String() for whole milliseconds: "1s", "500ms", "1m30s". */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
