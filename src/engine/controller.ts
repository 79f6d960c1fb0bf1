/**
 * The controller (client-go controller.go): runs the reflector that fills the FIFO and the
 * process loop that drains it, and stops both together. Its process errors are dropped, as in
 * client-go since v0.33 (no RetryOnError); we only make them visible as log events.
 */
import type { Clock } from './clock';
import type { TraceEvent } from '../format/events';
import { FIFOClosedError, type ProcessFunc, type Queue } from './fifo';
import type { ReflectorOptions } from './reflector';
import { IndexPanic } from './store';

/**
 * The reflector as the informer uses it: what src/engine/reflector.ts's Reflector offers, named
 * apart so the informer can also run with a test double.
 */
export interface ReflectorRunner {
  run(signal: AbortSignal): Promise<void>;
  lastSyncResourceVersion(): string;
}

export type ReflectorFactory = (options: ReflectorOptions) => ReflectorRunner;

export interface ControllerOptions {
  queue: Queue;
  reflector: ReflectorRunner;
  process: ProcessFunc;
  clock: Clock;
  emit: (e: TraceEvent) => void;
}

export class Controller {
  constructor(private readonly o: ControllerOptions) {}

  /** Resolves once the signal has aborted, the reflector has stopped and the process loop has exited. */
  async run(signal: AbortSignal): Promise<void> {
    const close = () => this.o.queue.close();
    if (signal.aborted) close();
    else signal.addEventListener('abort', close, { once: true });
    await Promise.all([this.o.reflector.run(signal), this.processLoop(signal)]);
  }

  private async processLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.o.queue.pop(this.o.process);
      } catch (e) {
        if (e instanceof FIFOClosedError) return;
        const text = e instanceof Error ? e.message : String(e);
        const msg = e instanceof IndexPanic ? 'Observed a panic' : 'Error processing deltas';
        this.o.emit({ t: this.o.clock.now(), type: 'log', level: 'error', msg, kv: { err: text } });
      }
    }
  }
}
