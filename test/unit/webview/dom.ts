/** happy-dom for the webview tests, with the little of ElementInternals the toolkit's form controls call. */
import { GlobalRegistrator } from '@happy-dom/global-registrator';

export function registerDom(): void {
  GlobalRegistrator.register();
  // happy-dom has no ElementInternals; the toolkit's form controls only need these calls to exist.
  (globalThis as unknown as { HTMLElement: { prototype: Record<string, unknown> } }).HTMLElement.prototype.attachInternals = function () {
    return new Proxy({ states: new Set(), form: null, labels: [] } as Record<string | symbol, unknown>, { get: (t, k) => (k in t ? t[k] : () => true) });
  };
}

export async function unregisterDom(): Promise<void> {
  await GlobalRegistrator.unregister();
}

/**
 * For a describe block: happy-dom registered before its tests and removed after them, and a module
 * that needs the DOM loaded once it is there (`load` calls require); the getter returns that module.
 */
export function underDom<T>(load: () => T): () => T {
  let mod: T | undefined;
  before(function () {
    this.timeout(20_000);
    registerDom();
    mod = load();
  });
  after(async () => {
    await unregisterDom();
  });
  return () => {
    if (mod === undefined) throw new Error('the module is loaded before the tests run');
    return mod;
  };
}
