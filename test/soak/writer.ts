/**
 * The soak's writer: two loops that create, update and delete ConfigMaps in the soak namespace
 * through the admin connection (straight to the apiserver, not through the fault proxy), 20 ms
 * apart, until paused. It counts what succeeded and what failed (a write during a fault may fail).
 */
import type { E2ECluster } from '../e2e/cluster';
import { sleep } from '../e2e/helpers';
import { NS } from './options';

export class Writer {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly present = new Set<number>();
  ops = { create: 0, update: 0, delete: 0, failed: 0 };
  private counter = 0;

  constructor(
    private readonly c: E2ECluster,
    private readonly n: number,
    private readonly rand: () => number,
  ) {}

  async seed(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.create(i);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = Promise.all([this.work(), this.work()]).then(() => undefined);
  }

  async pause(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async work(): Promise<void> {
    while (this.running) {
      const i = Math.floor(this.rand() * this.n);
      try {
        if (!this.present.has(i)) await this.create(i);
        else if (this.rand() < 0.75) await this.update(i);
        else await this.remove(i);
      } catch {
        this.ops.failed++;
        await sleep(100);
      }
      await sleep(20);
    }
  }

  private body(i: number) {
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: NS, name: `cm-${i}`, labels: { soak: 'yes' } }, data: { v: String(++this.counter), pad: 'x'.repeat(64 + (i % 7) * 100) } };
  }

  private async create(i: number): Promise<void> {
    const r = await this.c.admin('POST', `/api/v1/namespaces/${NS}/configmaps`, this.body(i), 10_000);
    if (r.status === 201 || r.status === 409) this.present.add(i);
    if (r.status === 201) this.ops.create++;
    else if (r.status !== 409) this.ops.failed++;
  }

  private async update(i: number): Promise<void> {
    const r = await this.c.admin('PUT', `/api/v1/namespaces/${NS}/configmaps/cm-${i}`, this.body(i), 10_000);
    if (r.status === 200) this.ops.update++;
    else {
      if (r.status === 404) this.present.delete(i);
      this.ops.failed++;
    }
  }

  private async remove(i: number): Promise<void> {
    const r = await this.c.admin('DELETE', `/api/v1/namespaces/${NS}/configmaps/cm-${i}`, undefined, 10_000);
    if (r.status === 200 || r.status === 404) this.present.delete(i);
    if (r.status === 200) this.ops.delete++;
    else if (r.status !== 404) this.ops.failed++;
  }
}
