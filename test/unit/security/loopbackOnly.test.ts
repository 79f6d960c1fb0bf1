/**
 * Tests and benchmarks talk only to loopback.
 *
 * - At run time, for the whole unit suite: root hooks wrap net.Server#listen and net.Socket#connect
 *   (what node:http, node:https, fetch/undici and client-node all end in) and record any server
 *   bound beyond loopback (including the all-interfaces default of a host-less listen) and any
 *   connection to a host that is not loopback. The root `after` hook fails the run if there was one.
 * - In the sources of test/, bench/, scripts/ and tools/: every URL and IPv4 literal names a
 *   loopback host, or is one of the listed strings that are never dialled (links, fixtures).
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { join, relative } from 'node:path';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\]|::ffff:127(\.\d{1,3}){3})$/i;
const violations: string[] = [];

type Listen = (...args: unknown[]) => net.Server;
type Connect = (...args: unknown[]) => net.Socket;
const originalListen = net.Server.prototype.listen as unknown as Listen;
const originalConnect = net.Socket.prototype.connect as unknown as Connect;

/** The host a listen() call binds: undefined = every interface (Node's default); null = not TCP (a path, a handle). */
function listenHost(args: unknown[]): string | undefined | null {
  const [a, b] = args;
  if (typeof a === 'string' && !/^\d+$/.test(a)) return null; // a unix socket / pipe path
  if (a !== null && typeof a === 'object') {
    const o = a as { host?: string; port?: unknown; path?: string };
    if (o.path !== undefined || (o.port === undefined && o.host === undefined)) return null;
    return o.host;
  }
  return typeof b === 'string' ? b : undefined;
}

function connectHost(args: unknown[]): string | null {
  // net.connect() hands connect() its normalized [options, callback] array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') {
    const o = first as { host?: string; path?: string };
    if (o.path !== undefined) return null;
    return o.host ?? 'localhost';
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null; // a path
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

before(() => {
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    const host = listenHost(args);
    if (host !== null && (host === undefined || !LOOPBACK.test(host))) violations.push(`listen on ${host ?? 'every interface'}: ${new Error().stack?.split('\n').slice(2, 5).join(' | ')}`);
    return originalListen.apply(this, args);
  } as unknown as typeof net.Server.prototype.listen;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const host = connectHost(args);
    if (host !== null && !LOOPBACK.test(host)) violations.push(`connect to ${host}: ${new Error().stack?.split('\n').slice(2, 5).join(' | ')}`);
    return originalConnect.apply(this, args);
  } as unknown as typeof net.Socket.prototype.connect;
});

after(() => {
  net.Server.prototype.listen = originalListen as unknown as typeof net.Server.prototype.listen;
  net.Socket.prototype.connect = originalConnect as unknown as typeof net.Socket.prototype.connect;
  assert.deepEqual(violations, [], 'a unit test listened or connected beyond loopback');
});

/** Literals that look like network addresses but are never dialled, with why. */
const NEVER_DIALLED: Record<string, string> = {
  'github.com': 'upstream issue links the findings tests compare',
  'pkg.go.dev': 'a documentation link the findings tests compare',
  'kubernetes.default.svc.cluster.local': "kube-apiserver's --service-account-issuer value",
  'webview.example': "the webview CSP test's stand-in cspSource",
  'scenario.invalid': "the conformance oracle's REST client host; its dialer is an in-memory pipe (test/conformance/oracle/transport.go)",
  x: 'a base for parsing relative request URLs',
  sandbox: 'a base for parsing relative request URLs',
  'svc-': 'a ConfigMap value in the benchmark data',
  '10.0.0.1': 'a certificate SAN (cluster.sh) and a redaction fixture',
  '10.0.0.0': "kube-apiserver's --service-cluster-ip-range",
  '1.2.3.4': 'an error-text fixture',
  h: 'a redaction fixture (https://user:pw@h/x)',
  'www.w3.org': 'the SVG namespace name of the soak memory plot',
  '127': 'the start of 127\\.0\\.0\\.1 escaped in a regular expression',
  '0.0.0.0': "the observe CLI test's --listen value that must be refused before anything listens",
};

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'expected' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|js|mjs|sh|go)$/.test(name)) out.push(p);
  }
  return out;
}

describe('security: tests and benchmarks talk only to loopback', () => {
  it('the run-time guard sees a listen beyond loopback and a connect to another host', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const before = violations.length;
    const s = net.connect(port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.destroy();
    assert.equal(violations.length, before, 'loopback is fine');
    assert.equal(listenHost([0]), undefined, 'a host-less listen binds every interface');
    assert.equal(listenHost([0, '0.0.0.0']), '0.0.0.0');
    assert.equal(connectHost([[{ host: '192.0.2.1', port: 1 }, null]]), '192.0.2.1');
    assert.ok(!LOOPBACK.test('0.0.0.0') && !LOOPBACK.test('::') && !LOOPBACK.test('127.0.0.1.example.com'));
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('every address literal in test/, bench/, scripts/ and tools/ is loopback or never dialled', () => {
    const root = join(__dirname, '..', '..', '..');
    // This file is left out: its guard test names non-loopback addresses on purpose.
    const files = ['test', 'bench', 'scripts', 'tools'].flatMap((d) => sourceFiles(join(root, d))).filter((f) => f !== __filename);
    assert.ok(files.length > 50, `scanned ${files.length} files`);
    const address = /\b(?:https?|wss?):\/\/(?:[^\s/@'"`]*@)?(\[[0-9a-f:.]+\]|[A-Za-z0-9.-]+)|\b(\d{1,3}(?:\.\d{1,3}){3})\b/gi;
    const found: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(address)) {
        const host = (m[1] ?? m[2]).replace(/\.$/, '');
        if (LOOPBACK.test(host) || host in NEVER_DIALLED) continue;
        found.push(`${relative(root, f)}: ${m[0]}`);
      }
    }
    assert.deepEqual(found, [], 'a non-loopback address: make it loopback, or list it in NEVER_DIALLED with the reason');
  });
});
