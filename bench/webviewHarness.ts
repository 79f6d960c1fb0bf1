/**
 * The rig for (e): the real webview bundle in headless Debian chromium (playwright-core), in a
 * page that stands in for VS Code's webview host: it defines acquireVsCodeApi, sets a dark
 * theme's --vscode-* variables and loads media/timeline.css and the bundle. A loopback HTTP
 * server (127.0.0.1, ephemeral port) serves the page, the bundles and the protocol messages as
 * JSON text, so a 500k-event snapshot never travels through the DevTools protocol.
 *
 * Bundles are built here with the options of esbuild.mjs's webview target (browser, iife,
 * es2022), from the working tree ("current") and, for before/after comparisons in one run, from
 * a git revision ("baseline", unpacked by bench/baseline.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO, unpackRevision } from './baseline';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--headless',
];

/** Builds webview/main.ts of the working tree, or of `revision` when given; returns the JS text. */
export async function buildWebviewBundle(revision?: string): Promise<string> {
  const unpacked = revision ? unpackRevision(revision) : undefined;
  try {
    const out = await build({
      entryPoints: [join(unpacked?.root ?? REPO, 'webview', 'main.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      minify: false,
      sourcemap: false,
      logLevel: 'error',
      nodePaths: [join(REPO, 'node_modules')],
    });
    return out.outputFiles[0].text;
  } finally {
    unpacked?.remove();
  }
}

/** A dark theme's variables, as VS Code sets them on the webview's root (the subset timeline.css and palette.ts read). */
const THEME = `
html { --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #cccccc; --vscode-editor-foreground: #d4d4d4; --vscode-editor-background: #1e1e1e;
  --vscode-descriptionForeground: #9d9d9d; --vscode-disabledForeground: #6b6b6b; --vscode-focusBorder: #007fd4;
  --vscode-charts-red: #f14c4c; --vscode-charts-blue: #3794ff; --vscode-charts-yellow: #cca700; --vscode-charts-orange: #d18616;
  --vscode-charts-green: #89d185; --vscode-charts-purple: #b180d7; --vscode-charts-foreground: #cccccc; --vscode-charts-lines: #cccccc80;
  --vscode-editorWidget-border: #454545; --vscode-editorWidget-background: #252526; --vscode-panel-border: #80808059;
  --vscode-badge-background: #4d4d4d; --vscode-badge-foreground: #ffffff; --vscode-errorForeground: #f48771;
  --vscode-editor-selectionBackground: #264f78; --vscode-textLink-foreground: #3794ff; --vscode-widget-border: #303031;
  --vscode-editorHoverWidget-background: #252526; --vscode-editorHoverWidget-foreground: #cccccc; --vscode-editorHoverWidget-border: #454545;
  --vscode-textCodeBlock-background: #0a0a0a66; --vscode-gitDecoration-addedResourceForeground: #81b88b;
  --vscode-gitDecoration-deletedResourceForeground: #c74e39; --vscode-inputValidation-errorBackground: #5a1d1d;
  --vscode-inputValidation-errorBorder: #be1100; }`;

/**
 * Runs before the bundle: the VS Code API stub and the probes. Every requestAnimationFrame
 * callback of the bundle is timed ([start, end] in `frames`); the message listeners added before
 * and after the bundle's own one bracket its handler ([start, end] in `handlers`). The harness's
 * own frame waits use the native requestAnimationFrame, so they are not counted.
 */
const PROBES = `
(() => {
  const nativeRaf = window.requestAnimationFrame.bind(window);
  const nextFrame = () => new Promise((r) => nativeRaf(() => r()));
  const b = {
    sent: [], frames: [], handlers: [], msgStart: 0, text: null, deltas: [],
    nextFrame,
    async settle() { await nextFrame(); await nextFrame(); },
    async fetchText(url) { b.text = await (await fetch(url)).text(); return b.text.length; },
    async fetchDeltas(url) { b.deltas = await (await fetch(url)).json(); return b.deltas.length; },
    ready() { return b.sent.some((m) => m.method === 'timeline/ready'); },
    /** Parse the snapshot text (VS Code deserialises each message), post it, wait for the first render after it. */
    async firstRender() {
      const f0 = b.frames.length, h0 = b.handlers.length;
      const t0 = performance.now();
      const msg = JSON.parse(b.text);
      b.text = null;
      const parsed = performance.now();
      window.postMessage(msg, '*');
      for (let i = 0; i < 600; i++) {
        await nextFrame();
        const h = b.handlers[h0];
        if (h && b.frames.slice(f0).some((f) => f[0] >= h[1])) break;
      }
      const h = b.handlers[h0];
      if (!h) throw new Error('the snapshot was not handled');
      const render = b.frames.slice(f0).find((f) => f[0] >= h[1]);
      if (!render) throw new Error('no render after the snapshot');
      await nextFrame();
      return { parseMs: parsed - t0, handlerMs: h[1] - h[0], renderMs: render[1] - render[0], renderedMs: render[1] - t0, nextFrameMs: performance.now() - t0 };
    },
    /** Posts the fetched delta messages every intervalMs (parsed at post time), then waits two frames. */
    async stream(intervalMs) {
      const f0 = b.frames.length, h0 = b.handlers.length;
      const t0 = performance.now();
      for (let i = 0; i < b.deltas.length; i++) {
        const wait = t0 + i * intervalMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        window.postMessage(JSON.parse(b.deltas[i]), '*');
      }
      await b.settle();
      const dur = (xs) => xs.map((x) => x[1] - x[0]);
      return { wallMs: performance.now() - t0, frames: dur(b.frames.slice(f0)), handlers: dur(b.handlers.slice(h0)) };
    },
    framesSince(n) { return b.frames.slice(n).map((x) => x[1] - x[0]); },
  };
  window.__bench = b;
  window.requestAnimationFrame = (cb) => nativeRaf((ts) => {
    const s = performance.now();
    try { cb(ts); } finally { b.frames.push([s, performance.now()]); }
  });
  window.acquireVsCodeApi = () => ({ postMessage: (m) => b.sent.push(m), getState: () => undefined, setState: () => undefined });
  window.addEventListener('message', () => { b.msgStart = performance.now(); });
})();`;

const AFTER = `window.addEventListener('message', () => { __bench.handlers.push([__bench.msgStart, performance.now()]); });`;

function page(bundle: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><title>timeline bench</title>
<style>${THEME}</style><link rel="stylesheet" href="/timeline.css"></head>
<body class="vscode-dark"><main id="app" aria-label="bench"></main>
<script>${PROBES}</script><script src="/bundle/${bundle}.js"></script><script>${AFTER}</script></body></html>`;
}

/** Serves the page per bundle name (/page/NAME), the bundles, timeline.css and named JSON blobs. */
export class HarnessServer {
  private readonly server: Server;
  private readonly blobs = new Map<string, Buffer>();
  private readonly bundles = new Map<string, string>();
  private readonly css = readFileSync(join(REPO, 'media', 'timeline.css'));

  constructor() {
    this.server = createServer((req, res) => {
      const url = req.url ?? '/';
      const send = (type: string, body: string | Buffer) => {
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      };
      const name = url.split('/').pop()?.replace(/\.js$/, '') ?? '';
      if (url === '/timeline.css') send('text/css', this.css);
      else if (url.startsWith('/page/') && this.bundles.has(name)) send('text/html', page(name));
      else if (url.startsWith('/bundle/') && this.bundles.has(name)) send('text/javascript', this.bundles.get(name) ?? '');
      else if (url.startsWith('/blob/') && this.blobs.has(name)) send('application/json', this.blobs.get(name) ?? '');
      else {
        res.writeHead(404);
        res.end();
      }
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  addBundle(name: string, js: string): void {
    this.bundles.set(name, js);
  }

  addBlob(name: string, text: string): void {
    this.blobs.set(name, Buffer.from(text));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
