/**
 * Reconstruction: the observed lists and watches of a process, grouped into reflectors (resource,
 * namespace, selectors, user agent), each replayed through an engine SharedIndexInformer whose
 * ListerWatcher is a FollowerListerWatcher (it sends nothing). Every reconstructed informer gets
 * its own TraceRecorder (the same lanes as an embedded informer: requests, lists, watches,
 * relists with the engine's reasons, FIFO, notifications) and its own notification log
 * (contracts §2, each line with a `reflector` field). Where the process does something the
 * profile would not do next, a finding names the difference and its likely causes.
 */
import type { EventSink, TraceEvent } from '../format/events';
import type { Profile } from '../engine/profiles';
import { SharedIndexInformer } from '../engine/sharedInformer';
import { requestLine, type LogLine } from '../scenario/notificationLog';
import { DEFAULT_TRACE_CAP, TraceRecorder } from '../trace/recorder';
import pkg from '../../package.json';
import { FollowerClock, FollowerListerWatcher, type Divergence } from './follower';
import type { ObservedExchange } from './exchange';
import { reflectorKey, type CollectionRef } from './requests';

/** A notification-log line of one reconstructed informer. */
export type ObservedLogLine = LogLine & { reflector: string };

export interface ObserveFinding {
  reflector: string;
  kind: Divergence['kind'];
  title: string;
  detail: string;
  likelyCauses: string[];
  at: string;
}

export interface ReconstructorOptions {
  profile: Profile;
  /** The kubeconfig context the proxy forwards to (trace header). */
  context?: string;
  /** Trace cap per reflector. */
  cap?: number;
  /** Every notification-log line as it is produced. */
  onLine?: (line: ObservedLogLine) => void;
  onFinding?: (f: ObserveFinding) => void;
  /** A new reflector was seen (its informer is already running). */
  onReflector?: (r: ObservedReflector) => void;
}

export class ObservedReflector {
  readonly recorder: TraceRecorder;
  readonly informer: SharedIndexInformer;
  readonly follower: FollowerListerWatcher;
  readonly lines: ObservedLogLine[] = [];
  readonly findings: ObserveFinding[] = [];
  requests = 0;
  notifications = 0;
  private readonly stop = new AbortController();
  private readonly running: Promise<void>;
  private pendingBackoffMs = 0;
  /** The engine's clock (the time base of this reflector's trace events). */
  clock!: FollowerClock;

  constructor(
    readonly name: string,
    readonly ref: CollectionRef,
    readonly userAgent: string,
    selectors: { labelSelector?: string; fieldSelector?: string },
    private readonly o: ReconstructorOptions,
  ) {
    const cap = o.cap ?? DEFAULT_TRACE_CAP;
    this.recorder = new TraceRecorder(
      {
        format: 'informer-trace/v1',
        tool: { name: 'informer-inspector', version: pkg.version },
        profile: o.profile.name,
        gates: { ...o.profile.gates },
        resource: { group: ref.group, version: ref.version, resource: ref.resource, namespaced: ref.namespace !== '' ? true : undefined } as never,
        ...(ref.namespace ? { namespace: ref.namespace } : {}),
        ...(selectors.labelSelector ? { labelSelector: selectors.labelSelector } : {}),
        ...(selectors.fieldSelector ? { fieldSelector: selectors.fieldSelector } : {}),
        ...(o.context ? { context: o.context } : {}),
        source: 'cluster',
        startedAt: new Date().toISOString(),
        cap,
        redacted: true,
      },
      cap,
    );
    const sink: EventSink = { emit: (e) => this.onEvent(e) };
    const prefix = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
    const url = `${prefix}${ref.namespace ? `/namespaces/${ref.namespace}` : ''}/${ref.resource}`;
    this.follower = new FollowerListerWatcher({
      ref,
      url,
      onDivergence: (d) => this.divergence(d),
      restRetriesWatchOpen: o.profile.restRetriesWatchOpen,
      takeBackoffMs: () => {
        const ms = this.pendingBackoffMs;
        this.pendingBackoffMs = 0;
        return ms;
      },
    });
    this.clock = new FollowerClock(this.follower);
    this.informer = new SharedIndexInformer({
      listerWatcher: this.follower,
      profile: o.profile,
      clock: this.clock,
      sink,
      resyncPeriodMs: 0,
      typeDescription: `${ref.group}/${ref.version}, Resource=${ref.resource}`,
      name: `observed ${name}`,
    });
    this.informer.addEventHandler('main', {});
    this.running = this.informer.run(this.stop.signal);
    this.running.catch(() => undefined);
  }

  accept(x: ObservedExchange): void {
    this.requests++;
    this.line(requestLine(x.call.verb, x.call.options));
    this.follower.push(x);
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running.catch(() => undefined);
  }

  private line(l: LogLine): void {
    const line = { ...l, reflector: this.name } as ObservedLogLine;
    this.lines.push(line);
    this.o.onLine?.(line);
  }

  private onEvent(e: TraceEvent): void {
    this.recorder.emit(e);
    if (e.type === 'backoff') this.pendingBackoffMs += e.sleepMs;
    else if (e.type === 'synced') this.line({ kind: 'synced' });
    else if (e.type === 'notify') {
      this.notifications++;
      const n: LogLine = {
        kind: 'notify',
        handler: e.handler,
        op: e.op,
        key: e.key,
        ...(e.op === 'update' ? { oldRv: e.oldRv ?? '' } : {}),
        rv: e.rv,
        ...(e.op === 'add' && e.initialList !== undefined ? { initialList: e.initialList } : {}),
        ...(e.tombstone ? { tombstone: true } : {}),
      };
      this.line(n);
    }
  }

  private divergence(d: Divergence): void {
    const f = findingFor(this.name, this.o.profile, d);
    this.findings.push(f);
    this.recorder.emit({
      t: this.clock.now(),
      type: 'log',
      level: 'warning',
      msg: `observed process diverges from client-go ${this.o.profile.name}: ${f.title}`,
      kv: { expected: d.expected, got: d.got },
    });
    this.o.onFinding?.(f);
  }
}

function findingFor(reflector: string, profile: Profile, d: Divergence): ObserveFinding {
  const p = `client-go ${profile.name}`;
  const base = { reflector, kind: d.kind, at: new Date(d.at).toISOString() };
  const detail = `${p} would send ${d.expected}; the process sent ${d.got}.`;
  switch (d.kind) {
    case 'relist-instead-of-watch':
      return {
        ...base,
        title: `relisted where ${p} would re-watch`,
        detail,
        likelyCauses: [
          'an older client-go (before 1.16 a refused watch start relists: PR #81634)',
          'a custom ListWatch or a wrapper that restarts the informer after errors',
          'a WatchErrorHandler or a resync/restart loop in the controller',
        ],
      };
    case 'list-instead-of-watch-list':
      return {
        ...base,
        title: `listed where ${p} would stream the list (watch-list)`,
        detail,
        likelyCauses: [
          'an older client-go (watch-list is the default from v0.35 on)',
          'the WatchListClient feature gate turned off (KUBE_FEATURE_WatchListClient=false)',
          'a ListWatch that does not support watch-list semantics',
        ],
      };
    case 'watch-instead-of-list':
      return {
        ...base,
        title: `watched where ${p} would list`,
        detail,
        likelyCauses: ['a newer client-go or the WatchListClient gate turned on (streaming initial list)', 'a custom ListWatch'],
      };
    case 'other-resource-version':
      return {
        ...base,
        title: `requested another resourceVersion than ${p}`,
        detail,
        likelyCauses: [
          'another client-go version (≤1.16 relists at "0"; newer ones relist at the last RV, consistently after "too large")',
          'a custom ListWatch or tweakListOptions that sets resourceVersion',
        ],
      };
    case 'other-options':
      return {
        ...base,
        title: `request options differ from ${p}`,
        detail,
        likelyCauses: ['another client-go version (paging limit, bookmarks, watch-list parameters)', 'tweakListOptions or a custom ListWatch'],
      };
    case 'no-backoff':
      return {
        ...base,
        title: `no backoff where ${p} would wait`,
        detail,
        likelyCauses: ['a wrapper that restarts the informer at once', 'a custom backoff manager', 'an older client-go (fixed 1 s loop before 1.20)'],
      };
  }
}

/** Groups observed exchanges into reflectors and runs one reconstructed informer for each. */
export class Reconstructor {
  private readonly groups = new Map<string, ObservedReflector>();
  private closed = false;

  constructor(private readonly o: ReconstructorOptions) {}

  accept(x: ObservedExchange): void {
    if (this.closed || !x.readable) return;
    const key = reflectorKey(x.call, x.userAgent);
    let g = this.groups.get(key);
    if (!g) {
      g = new ObservedReflector(key, x.call.ref, x.userAgent, { labelSelector: x.call.options.labelSelector, fieldSelector: x.call.options.fieldSelector }, this.o);
      this.groups.set(key, g);
      this.o.onReflector?.(g);
    }
    g.accept(x);
  }

  reflectors(): ObservedReflector[] {
    return [...this.groups.values()];
  }

  findings(): ObserveFinding[] {
    return this.reflectors().flatMap((r) => r.findings);
  }

  /** Stops every reconstructed informer (what was observed so far stays in the traces and logs). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.reflectors().map((r) => r.close()));
  }
}

