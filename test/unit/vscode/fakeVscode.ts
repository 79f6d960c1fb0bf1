import Module from 'node:module';

/**
 * Requires a module of src/vscode with `require('vscode')` answered by a stand-in (the real module
 * exists only inside VS Code). `path` is resolved from this file's folder.
 */
export function requireWithFakeVscode<T>(path: string, fake: object): T {
  const mod = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const original = mod._load;
  mod._load = function (request, parent, isMain) {
    return request === 'vscode' ? fake : original.call(this, request, parent, isMain);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path) as T;
  } finally {
    mod._load = original;
  }
}
