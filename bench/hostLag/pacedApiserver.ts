/**
 * A loopback apiserver for the host-lag benchmark: 127.0.0.1, an ephemeral port, GET only.
 * LIST /api/v1/pods returns `objects` Pods (about 2 KB of JSON each, like bench/peers' workload);
 * the first watch streams MODIFIED events of those Pods (a new resourceVersion and condition
 * timestamp each) at `rate` events per second for `seconds`, paced every 10 ms (catching up after
 * a late tick, waiting when the socket is full), then ends. Later watches stay open and silent
 * until the run ends. Bounded in count (rate × seconds) and in time.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PacedOptions {
  objects: number;
  rate: number;
  seconds: number;
}

export interface PacedStats {
  sent: number;
  /** ms from the first event to the last. */
  durationMs: number;
}

function pod(i: number, rv: number, stamp: string): Record<string, unknown> {
  const name = `bench-pod-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'bench',
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(rv),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'bench', 'pod-template-hash': '5d4f8c7b9', tier: 'backend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'bench-5d4f8c7b9', uid: '11111111-2222-4333-8444-555555555555', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example/bench/app:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'bench' }, { name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          terminationMessagePath: '/dev/termination-log',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${i % 16}`,
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Ready', status: 'True', lastTransitionTime: stamp },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      hostIP: '10.0.0.1',
      podIP: `10.1.${(i >> 8) & 255}.${i & 255}`,
      startTime: '2026-01-01T00:00:00Z',
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: 'registry.example/bench/app:1.2.3', imageID: 'registry.example/bench/app@sha256:0123456789abcdef', started: true, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }],
    },
  };
}

export class PacedApiserver {
  private server?: http.Server;
  private watchServed = false;
  private readonly open = new Set<http.ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private rv = 1000;
  /** Per Pod, its watch event's JSON split around the resourceVersion and the condition timestamp. */
  private readonly templates: string[][];
  readonly stats: PacedStats = { sent: 0, durationMs: 0 };
  /** Resolves when the paced stream has ended. */
  readonly streamed: Promise<void>;
  private endStream!: () => void;

  constructor(private readonly o: PacedOptions) {
    this.streamed = new Promise((r) => (this.endStream = r));
    this.templates = Array.from({ length: o.objects }, (_, i) =>
      JSON.stringify({ type: 'MODIFIED', object: pod(i, 424242, '2099-01-01T00:00:00.000Z') })
        .split(/"424242"|"2099-01-01T00:00:00.000Z"/),
    );
  }

  /** One MODIFIED event of Pod i at rv, one line. */
  private event(i: number, rv: number): string {
    const [a, b, c] = this.templates[i];
    return `${a}"${rv}"${b}"${new Date(Date.UTC(2026, 0, 1, 0, 0, 0, rv)).toISOString()}"${c}\n`;
  }

  async start(): Promise<string> {
    const server = http.createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const res of this.open) res.destroy();
    const s = this.server;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    this.endStream();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/api/v1/pods') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 }));
      return;
    }
    const watch = url.searchParams.get('watch');
    if (watch !== 'true' && watch !== '1') {
      const items = Array.from({ length: this.o.objects }, (_, i) => pod(i, this.rv, '2026-01-01T00:00:00Z'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (this.watchServed) return;
    this.watchServed = true;
    void this.pace(res);
  }

  private async pace(res: http.ServerResponse): Promise<void> {
    const total = this.o.rate * this.o.seconds;
    const started = performance.now();
    let i = 0;
    while (i < total && !res.destroyed) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * this.o.rate));
      let text = '';
      for (; i < due; i++) {
        const rv = ++this.rv;
        text += this.event(i % this.o.objects, rv);
      }
      this.stats.sent = i;
      if (text && !res.write(text)) {
        await new Promise<void>((r) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            r();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      await new Promise<void>((r) => {
        const t = setTimeout(() => (this.timers.delete(t), r()), 10);
        this.timers.add(t);
      });
    }
    this.stats.durationMs = performance.now() - started;
    res.end();
    this.endStream();
  }
}
