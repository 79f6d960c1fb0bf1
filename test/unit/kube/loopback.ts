/**
 * A node:http server on 127.0.0.1 for the kube layer's transport tests, a kubeconfig pointing at
 * it, and a ConfigMap HttpListerWatcher that never sleeps (retries and backoff run at once).
 */
import * as http from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { Clock } from '../../../src/engine/clock';
import { KubeConnection } from '../../../src/kube/kubeconfig';
import { HttpListerWatcher } from '../../../src/kube/listerWatcher';

export const CM = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

/** Timers fire on the next turn and sleeps return at once. */
export const noSleepClock: Clock = {
  now: () => 0,
  setTimer: (_ms, fn) => {
    const h = setImmediate(fn);
    return { cancel: () => clearImmediate(h) };
  },
  sleep: async () => undefined,
};

/** A kubeconfig for http://127.0.0.1:port with `user` (a YAML flow mapping) as its user. */
export function loopbackKubeconfig(port: number, user = '{token: loopback-token}'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]`,
    `users: [{name: u, user: ${user}}]`,
    'contexts: [{name: x, context: {cluster: c, user: u}}]',
    'current-context: x',
  ].join('\n');
}

/** The ConfigMap ListerWatcher for the loopback server on port, no retries. */
export function loopbackListerWatcher(port: number, user?: string): HttpListerWatcher {
  return new HttpListerWatcher(KubeConnection.load({ kubeconfigYaml: loopbackKubeconfig(port, user) }), CM, { clock: noSleepClock, maxRetries: 0 });
}

export interface Loopback {
  server: http.Server;
  port: number;
  /** Destroys every open connection and closes the server. */
  close(): void;
}

/** A node:http server listening on 127.0.0.1 (a free port), its connections tracked so close() ends them. */
export async function startLoopback(handler: http.RequestListener): Promise<Loopback> {
  const server = http.createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
