/**
 * The extension manifest (package.json) and what `vsce package` ships: publishable without flags,
 * menus that hide what cannot run, activation only when needed, files that exist.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const pkg = JSON.parse(read('package.json')) as any;
const c = pkg.contributes;
type Cmd = { command: string; title: string; enablement?: string };
type MenuItem = { command?: string; submenu?: string; when?: string; group?: string };
const commands = c.commands as Cmd[];
const faults = commands.filter((x) => x.command.startsWith('informerInspector.fault.')).map((x) => x.command);

/** Does a .vscodeignore (negations after `**`) let this file into the package? */
function shipped(path: string): boolean {
  const lines = read('.vscodeignore').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
  const re = (glob: string) => new RegExp('^' + glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*') + '$');
  return lines.some((g) => re(g).test(path));
}

describe('extension manifest', () => {
  it('is publishable: license file, icon (PNG), changelog, repository, keywords, prepublish bundling', () => {
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(read('LICENSE'), /Apache License\s+Version 2\.0/);
    assert.ok(pkg.repository?.url?.startsWith('https://'), 'repository');
    assert.ok(Array.isArray(pkg.keywords) && pkg.keywords.length >= 3 && pkg.keywords.length <= 30);
    assert.ok(existsSync(join(ROOT, 'CHANGELOG.md')));
    assert.match(pkg.icon, /\.png$/);
    assert.deepEqual([...readFileSync(join(ROOT, pkg.icon)).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'icon is a PNG');
    assert.match(pkg.scripts['vscode:prepublish'], /esbuild\.mjs --production/);
    for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/extension.js', 'dist/engineWorker.js', 'dist/spillReaderWorker.js', pkg.icon, 'media/webview/main.js']) assert.ok(shipped(f), `${f} is not in the package`);
    assert.ok(!shipped('src/extension.ts') && !shipped('node_modules/d3/package.json'), 'sources and node_modules stay out');
    assert.equal(pkg.dependencies, undefined, 'everything is bundled: nothing for vsce or npm to install at run time');
  });

  it('is an installable CLI: not private, bins informer-inspector and kubectl-informer', () => {
    assert.notEqual(pkg.private, true);
    assert.deepEqual(pkg.bin, { 'informer-inspector': './dist/cli.js', 'kubectl-informer': './dist/cli.js' });
  });

  it('activates only when needed, with explicit extensionKind, capabilities and no Debuggers category', () => {
    assert.ok(!pkg.activationEvents.includes('onStartupFinished') && !pkg.activationEvents.includes('*'), pkg.activationEvents.join(', '));
    assert.ok(Array.isArray(pkg.extensionKind) && pkg.extensionKind.length > 0);
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, true);
    assert.ok(pkg.capabilities.virtualWorkspaces);
    assert.ok(!pkg.categories.includes('Debuggers'));
    assert.doesNotMatch(read('src/vscode/statusBar.ts').split('constructor(')[1].split('\n  }\n')[0], /setInterval/, 'no timer before an informer runs');
  });

  it('faults, stop, add handler and the cache check show in the palette only while an informer runs; faults are a Fault submenu', () => {
    const palette = c.menus.commandPalette as MenuItem[];
    const when = (cmd: string) => palette.find((m) => m.command === cmd)?.when;
    for (const f of [...faults, 'informerInspector.stop', 'informerInspector.addHandler', 'informerInspector.checkCache']) {
      assert.equal(when(f), 'informerInspector.running', f);
    }
    assert.equal(faults.length, 8);
    assert.equal(c.submenus[0].label, 'Fault');
    assert.deepEqual((c.menus[c.submenus[0].id] as MenuItem[]).map((m) => m.command), faults);
    const title = c.menus['view/title'] as MenuItem[];
    assert.ok(title.some((m) => m.submenu === c.submenus[0].id && /informerInspector\.running/.test(m.when ?? '')));
    assert.ok(title.some((m) => m.command === 'informerInspector.inspect' && m.group?.startsWith('navigation')));
  });

  it('explorer context menus on trace and scenario files; JSON validation for both schemas', () => {
    const explorer = c.menus['explorer/context'] as MenuItem[];
    const open = explorer.find((m) => m.command === 'informerInspector.openTrace');
    assert.match(open?.when ?? '', /informer-trace/);
    assert.match(explorer.find((m) => m.command === 'informerInspector.replayScenario')?.when ?? '', /scenario/);
    const validation = c.jsonValidation as { fileMatch: string[]; url: string }[];
    assert.equal(validation.length, 2);
    for (const v of validation) {
      const path = v.url.replace(/^\.\//, '');
      assert.ok(existsSync(join(ROOT, path)), path);
      assert.ok(shipped(path), `${path} is not in the package`);
      assert.ok(JSON.parse(read(path)).$schema);
    }
  });

  it("Inspect informer on a resource kind in the Kubernetes extension's cluster explorer, hidden from the palette", () => {
    const item = (c.menus['view/item/context'] as MenuItem[]).find((m) => m.command === 'informerInspector.inspectKind');
    assert.match(item?.when ?? '', /view == extension\.vsKubernetesExplorer && viewItem =~ \/vsKubernetes/);
    assert.equal((c.menus.commandPalette as MenuItem[]).find((m) => m.command === 'informerInspector.inspectKind')?.when, 'false');
  });

  it('every menu entry names a declared command; every command the extension registers is declared', () => {
    const declared = new Set(commands.map((x) => x.command));
    for (const [menu, items] of Object.entries(c.menus as Record<string, MenuItem[]>)) {
      for (const m of items) if (m.command) assert.ok(declared.has(m.command), `${menu}: ${m.command}`);
    }
    const registered = [...read('src/extension.ts').matchAll(/cmd\('([^']+)'/g)].map((m) => `informerInspector.${m[1]}`);
    for (const r of registered) assert.ok(declared.has(r), r);
  });

  it('a walkthrough through the sandbox stories, with existing media; light and dark panel icons', () => {
    const w = c.walkthroughs[0];
    assert.ok(w.steps.length >= 4);
    for (const s of w.steps) {
      const media = s.media.markdown ?? s.media.image;
      assert.ok(existsSync(join(ROOT, media)) && shipped(media), media);
    }
    for (const story of ['calm', 'restart-storm', 'watch-expiry', 'etcd-lost-delete']) {
      assert.ok(w.steps.some((s: { description: string }) => s.description.includes(encodeURIComponent(`"${story}"`).replace(/%22/g, '%22'))), story);
    }
    for (const f of ['media/timeline-light.svg', 'media/timeline-dark.svg']) assert.ok(existsSync(join(ROOT, f)) && shipped(f), f);
    assert.doesNotMatch(read('media/timeline-dark.svg'), /currentColor|#000/);
  });

  it('the user README keeps `npm start` and `npm test` visible, as does docs/DEVELOPING.md; its relative links and images exist', () => {
    for (const f of ['README.md', 'docs/DEVELOPING.md']) {
      const text = read(f);
      assert.ok(text.includes('npm start') && text.includes('npm test'), f);
    }
    const readme = read('README.md');
    for (const m of readme.matchAll(/\]\(([^)#]+)\)/g)) {
      if (/^[a-z]+:/.test(m[1])) continue;
      assert.ok(existsSync(join(ROOT, m[1])), `README links to a missing ${m[1]}`);
      assert.ok(shipped(m[1]), `README links to ${m[1]}, which is not in the package`);
    }
  });
});
