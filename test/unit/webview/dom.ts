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
