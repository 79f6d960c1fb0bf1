/**
 * The webview's Content-Security-Policy and options, from the real src/vscode/webviewContent.ts
 * (with a stand-in for the 'vscode' module, which exists only inside VS Code): default-src 'none',
 * scripts only by a fresh nonce (no 'unsafe-inline'/'unsafe-eval', no host sources), resources
 * only from media/, the title escaped; and every webview in src/vscode is set up through it.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireWithFakeVscode } from '../vscode/fakeVscode';

type WebviewContent = typeof import('../../../src/vscode/webviewContent');
interface FakeUri {
  path: string;
}

const CSP_SOURCE = 'https://webview.example';
const fakeVscode = {
  Uri: { joinPath: (base: FakeUri, ...parts: string[]): FakeUri => ({ path: [base.path, ...parts].join('/') }) },
};
const fakeWebview = {
  cspSource: CSP_SOURCE,
  asWebviewUri: (u: FakeUri) => `${CSP_SOURCE}${u.path}`,
};
const EXT = { path: '/ext' };

/** Loads webviewContent.ts with `require('vscode')` answered by the stand-in above. */
function loadWithFakeVscode(): WebviewContent {
  return requireWithFakeVscode<WebviewContent>('../../../src/vscode/webviewContent', fakeVscode);
}

function cspOf(html: string): Map<string, string[]> {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, 'a CSP meta tag');
  const out = new Map<string, string[]>();
  for (const d of m[1].split(';').map((s) => s.trim()).filter(Boolean)) {
    const [name, ...sources] = d.split(/\s+/);
    out.set(name, sources);
  }
  return out;
}

describe('security: webview CSP and options', () => {
  const content = loadWithFakeVscode();
  const HOSTILE_TITLE = 'Trace "><script>alert(1)</script>.informer-trace.json';
  const html = content.timelineHtml(fakeWebview as never, EXT as never, HOSTILE_TITLE);

  it("default-src 'none'; scripts only by nonce; no unsafe-* anywhere", () => {
    const csp = cspOf(html);
    assert.deepEqual(csp.get('default-src'), ["'none'"]);
    const scripts = csp.get('script-src') ?? [];
    assert.equal(scripts.length, 1, `script-src ${scripts.join(' ')}`);
    assert.match(scripts[0], /^'nonce-[A-Za-z0-9+/]{22}==?'$/, '128-bit nonce');
    for (const [name, sources] of csp) {
      for (const s of sources) {
        assert.ok(!/unsafe-|^\*$|^https?:$|^data:$/.test(s) || (name === 'img-src' && s === 'data:'), `${name} allows ${s}`);
      }
    }
    for (const d of ['connect-src', 'frame-src', 'child-src', 'object-src', 'worker-src']) assert.ok(!csp.has(d), `${d} falls back to 'none'`);
  });

  it('every script tag carries the nonce and loads from the extension; no inline script, no handler attribute', () => {
    const nonce = /'nonce-([^']+)'/.exec(cspOf(html).get('script-src')![0])![1];
    const tags = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(tags.length, 1, 'exactly the bundle (the hostile title did not add a script)');
    assert.match(tags[0][1], new RegExp(`nonce="${nonce.replace(/[+/]/g, '\\$&')}"`));
    assert.match(tags[0][1], new RegExp(`src="${CSP_SOURCE}/ext/media/webview/main.js"`));
    assert.equal(tags[0][2].trim(), '');
    assert.ok(!/\son[a-z]+=/i.test(html), 'no inline event handler attributes');
    assert.ok(html.includes('&#34;&#62;&#60;script&#62;'), 'the title is escaped');
  });

  it('a fresh nonce per page', () => {
    const again = content.timelineHtml(fakeWebview as never, EXT as never, 't');
    assert.notEqual(cspOf(again).get('script-src')![0], cspOf(html).get('script-src')![0]);
  });

  it('options: scripts on, resources from media/ only, no command URIs', () => {
    const o = content.webviewOptions(EXT as never) as { enableScripts?: boolean; localResourceRoots?: FakeUri[]; enableCommandUris?: unknown };
    assert.equal(o.enableScripts, true);
    assert.deepEqual(o.localResourceRoots, [{ path: '/ext/media' }]);
    assert.equal(o.enableCommandUris, undefined);
  });

  it('every webview in src/vscode gets its options and HTML from webviewContent.ts', () => {
    const dir = join(__dirname, '..', '..', '..', 'src', 'vscode');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'webviewContent.ts');
    const problems: string[] = [];
    let sites = 0;
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const line of text.split('\n')) {
        if (/\.html\s*=/.test(line)) {
          sites++;
          if (!/\.html\s*=\s*timelineHtml\(/.test(line)) problems.push(`${f}: ${line.trim()}`);
        }
        if (/enableScripts|localResourceRoots|enableCommandUris/.test(line)) problems.push(`${f}: ${line.trim()}`);
        if (/\.options\s*=/.test(line) && !/\.options\s*=\s*webviewOptions\(/.test(line)) problems.push(`${f}: ${line.trim()}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(sites >= 3, `panel, bottom view and trace editor: ${sites}`);
  });
});
