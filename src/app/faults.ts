/**
 * The fault catalogue: every fault the tool can inject, once — its id (the name 'fault.injected'
 * events carry), its title (package.json's command title), its VS Code command, its CLI name,
 * its parameter, and how it is applied to a running informer. The CLI's `--fault` specs and the
 * extension's "Fault: …" commands both read this list; a unit test checks package.json against it.
 */
import type { FaultName } from '../format/events';
import type { FaultInjectingListerWatcher } from '../sources/faults';

/** What applying a fault needs from a running informer. */
export interface FaultTarget {
  faults: FaultInjectingListerWatcher;
  /** Adds a handler that takes ms per notification (and records the fault). */
  addSlowHandler(ms: number): void;
}

/** A fault's one value: a duration, asked for in `unit` and passed to apply() in ms. */
export interface FaultParam {
  /** The question the extension asks. */
  prompt: string;
  unit: 's' | 'ms';
  /** Default, min and max, in `unit`. */
  default: number;
  min: number;
  max: number;
  /** On the command line: must the value be given or may it be left out (then `default`), its name in the usage, an example. */
  cli: { value: 'required' | 'optional'; name: string; example: string };
  /** Set when the value must be whole seconds: what the value is, for the message. */
  wholeSeconds?: string;
}

export interface FaultDef {
  id: FaultName;
  title: string;
  /** The command is `informerInspector.fault.<command>`. */
  command: string;
  /** `record --fault <cli>[=VALUE][@AT]`. */
  cli: string;
  param?: FaultParam;
  /** Armed until a matching request or event comes; the injector's pendingFaults() lists it meanwhile. */
  oneShot: boolean;
  /** valueMs: the parameter in ms (param.default when absent). */
  apply(target: FaultTarget, valueMs?: number): void;
}

function valueOf(def: FaultDef, valueMs: number | undefined): number {
  if (valueMs !== undefined) return valueMs;
  return (def.param?.default ?? 0) * (def.param?.unit === 's' ? 1000 : 1);
}

export const FAULTS: readonly FaultDef[] = [
  {
    id: 'refuseConnections',
    title: 'Fault: refuse connections for N seconds',
    command: 'refuse',
    cli: 'refuse',
    param: { prompt: 'Refuse connections for how many seconds?', unit: 's', default: 5, min: 1, max: 600, cli: { value: 'required', name: 'DURATION', example: '10s' } },
    oneShot: false,
    apply(t, ms) {
      t.faults.refuseConnections(valueOf(this, ms));
    },
  },
  {
    id: 'resetWatch',
    title: 'Fault: reset the watch',
    command: 'reset',
    cli: 'reset-watch',
    oneShot: false,
    apply: (t) => t.faults.resetWatch(),
  },
  {
    id: 'expireNextWatch',
    title: 'Fault: 410 Expired on the next watch',
    command: 'expire',
    cli: 'expire-watch',
    oneShot: true,
    apply: (t) => t.faults.expireNextWatch(),
  },
  {
    id: 'tooLargeNextList',
    title: 'Fault: TooLargeResourceVersion on the next list',
    command: 'tooLarge',
    cli: 'toolarge-list',
    oneShot: true,
    apply: (t) => t.faults.tooLargeNextList(),
  },
  {
    id: 'internalErrorOnWatch',
    title: 'Fault: InternalError on the watch',
    command: 'internalError',
    cli: 'internal-error',
    // Takes effect at once on an open watch, else on the next one.
    oneShot: true,
    apply: (t) => t.faults.internalErrorOnWatch(),
  },
  {
    id: 'tooManyRequests',
    title: 'Fault: 429 Too Many Requests',
    command: 'tooManyRequests',
    cli: '429',
    param: { prompt: 'Retry-After seconds', unit: 's', default: 1, min: 0, max: 600, cli: { value: 'optional', name: 'RETRY-AFTER', example: '2s' }, wholeSeconds: 'Retry-After' },
    oneShot: true,
    apply(t, ms) {
      t.faults.tooManyRequests(valueOf(this, ms) / 1000);
    },
  },
  {
    id: 'dropNextDelete',
    title: 'Fault: drop the next delete event',
    command: 'dropDelete',
    cli: 'drop-delete',
    oneShot: true,
    apply: (t) => t.faults.dropNextDelete(),
  },
  {
    id: 'slowHandler',
    title: 'Fault: slow handler (N ms per notification)',
    command: 'slowHandler',
    cli: 'slow-handler',
    param: { prompt: 'Milliseconds per notification', unit: 'ms', default: 500, min: 1, max: 600_000, cli: { value: 'required', name: 'DURATION', example: '300ms' } },
    oneShot: false,
    apply(t, ms) {
      t.addSlowHandler(valueOf(this, ms));
    },
  },
];

export function faultByCliName(name: string): FaultDef | undefined {
  return FAULTS.find((f) => f.cli === name);
}

export function faultByCommand(command: string): FaultDef | undefined {
  return FAULTS.find((f) => f.command === command);
}
