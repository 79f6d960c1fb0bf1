/**
 * Ownership of things that must be released: a Disposable base that disposes what it tracks
 * (in reverse order, once, each even if another throws), and a small event emitter whose
 * subscriptions are disposables. Shaped like VS Code's (anything with dispose() can be tracked),
 * but free of 'vscode', so the app layer and its tests use it too.
 */

export interface IDisposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

export class Disposable implements IDisposable {
  private readonly owned: IDisposable[] = [];
  private disposedFlag = false;

  get isDisposed(): boolean {
    return this.disposedFlag;
  }

  /** Disposes d with this; if this is already disposed, at once. */
  protected track<T extends IDisposable>(d: T): T {
    if (this.disposedFlag) d.dispose();
    else this.owned.push(d);
    return d;
  }

  /** Runs before the tracked disposables are released. */
  protected onDispose(): void {}

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    let first: unknown;
    const all: Array<() => void> = [() => this.onDispose(), ...this.owned.splice(0).reverse().map((d) => () => d.dispose())];
    for (const release of all) {
      try {
        release();
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }
}

export type Event<T> = (listener: (value: T) => void) => IDisposable;

export class Emitter<T> implements IDisposable {
  private readonly listeners = new Set<(value: T) => void>();
  private disposed = false;

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return toDisposable(() => undefined);
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  get listenerCount(): number {
    return this.listeners.size;
  }

  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

/** A bag of disposables released together (for owners that are not classes of their own). */
export class DisposableStore extends Disposable {
  add<T extends IDisposable>(d: T): T {
    return this.track(d);
  }
}
