import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../api/context.js';
import type * as appDeps from '../../api/deps.js';
import { closeAppDeps, createAppDeps } from '../../api/deps.js';
import { checkLedgerIntegrity } from '../../domain/billing/integrity/check-ledger-integrity.js';
import type * as configModule from '../../lib/config.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import type * as clusterModule from '../../scripts/lib/cluster.js';
import { type Cluster, type ClusterProcess, clusterProcess, ensureProductionBuild, migrateCluster } from '../../scripts/lib/cluster.js';
import { freePortRange } from '../../scripts/lib/ports.js';
import { provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { type ApiClient, createApiClient } from '../helpers/http.js';
import { checkOutPreviousRelease, previous, previousRelease, removePreviousRelease } from '../helpers/previous-release.js';
import type { TestPlatform } from '../helpers/platform.js';
import type * as bootstrapModule from '../../domain/admins/bootstrap.js';
import type * as provisioningHelpers from '../helpers/provisioning.js';
import type { UpstreamCatalogue } from '../helpers/provisioning.js';
import { eventually } from '../helpers/wait.js';

/**
 * An upgrade with no downtime (issue #37 part 4, docs/production.md "Upgrade without downtime"):
 * the cluster of the release before this tree (`ops/previous-release`, a git worktree of it, its
 * own dist/, harness and test helpers) serves a stream of purchases, payments and renewals
 * through the balancer; the upgrade then runs in place, one step at a time, as the runbook says:
 * the new release's migrations (the old processes keep serving on the new schema), the workers one
 * by one, the APIs one by one. Nothing answers 5xx or refuses a request of the stream, every
 * purchase is provisioned and bought upstream exactly once, every renewal completes, workflows
 * started on the old code finish on the new, and the books balance.
 */
const HOOK_TIMEOUT_MS = 30 * 60_000;
const log = (m: string) => console.log(`[upgrade test] ${m}`);
/**
 * The root admin, made by the old release's bootstrap. Not `ROOT_ADMIN` of our platform helper:
 * importing that module installs the Temporal runtime, which the old release's helpers install
 * again (one runtime per process).
 */
const ROOT_ADMIN = { username: 'root', password: 'upgrade-root-password-2026' } as const;

type StreamFailure = { step: string; status: number | string; code?: number; message?: string };

/**
 * Customers through the balancer until stopped: each registers, is credited, buys and pays from
 * its balance; every third round it renews a service of its own once that service is active and
 * pays the renewal. Every answer must be a success: the stream sends nothing that may be refused.
 */
function startStream(balancer: ApiClient, rootToken: string, productId: number, customers: number) {
  const purchases: number[] = [];
  const renewals: number[] = [];
  const failures: StreamFailure[] = [];
  let running = true;
  const call = async (step: string, send: () => Promise<{ status: number; body: { code: number; message: string; data: any } }>) => {
    try {
      const res = await send();
      if (res.status !== 200 || res.body.code !== 0) {
        failures.push({ step, status: res.status, code: res.body.code, message: res.body.message });
        return null;
      }
      return res.body.data;
    } catch (err) {
      failures.push({ step, status: String(err instanceof Error ? err.message : err).slice(0, 300) });
      return null;
    }
  };
  const customer = async (n: number) => {
    let buyer: { id: number; token: string } | null = null;
    while (running && !buyer) {
      const registered = await call('register', () =>
        balancer.post('/api/v2/client/register', { body: { email: `upgrade-${n}-${Date.now()}@example.com`, password: 'buyer-password-1' } }),
      );
      if (registered) buyer = { id: registered.user.id as number, token: registered.access_token as string };
    }
    if (!buyer) return;
    const { id, token } = buyer;
    const renewed = new Set<number>();
    for (let round = 0; running; round++) {
      // Each round: a recharge by an admin, a purchase paid from the balance; every third, a renewal.
      await call('credit', () => balancer.post(`/api/v2/admin/users/${id}/recharges`, { token: rootToken, body: { amount: '200.00', remark: '升级测试' } }));
      const invoice = await call('purchase', () => balancer.post('/api/v2/client/invoices', { token, body: { product_id: productId, billing_period: 'monthly' } }));
      if (invoice && (await call('pay purchase', () => balancer.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token })))) purchases.push(invoice.id);
      if (round % 3 === 2) {
        const services = await call('services', () => balancer.get('/api/v2/client/services', { token, query: { status: 'active', page_size: 100 } }));
        const active = (services?.list ?? []).find((s: { id: number }) => !renewed.has(s.id));
        if (active) {
          renewed.add(active.id);
          const renewal = await call('renew', () => balancer.post(`/api/v2/client/services/${active.id}/renew`, { token, body: { billing_period: 'monthly' } }));
          if (renewal && (await call('pay renewal', () => balancer.post(`/api/v2/client/invoices/${renewal.id}/pay/balance`, { token })))) renewals.push(renewal.id);
        }
      }
      // A stream, not a burst: about one round a second per customer.
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  const loops = Array.from({ length: customers }, (_, n) => customer(n));
  return {
    purchases,
    renewals,
    failures,
    /** Until `count` more purchases were paid than now. */
    async more(count: number) {
      const target = purchases.length + count;
      await eventually(async () => (purchases.length >= target || failures.length > 20 ? true : null), 1200, 250);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

let commit = '';
let previousDir = '';
let dataDir = '';
let cluster: Cluster | null = null;
let upstream: UpstreamCatalogue | null = null;
/** The processes of this release started in place of the old ones. */
const upgraded: ClusterProcess[] = [];
let deps: AppDeps | null = null;
let temporalConnection: Connection | null = null;

beforeAll(async () => {
  commit = previousRelease();
  previousDir = checkOutPreviousRelease(commit, log);
  log(`previous release ${commit.slice(0, 12)} in ${previousDir}`);
  // This release's dist/ is built before the old cluster starts, so the upgrade itself waits for nothing.
  ensureProductionBuild(log);
  const oldCluster = await previous<typeof clusterModule>(previousDir, 'scripts/lib/cluster.ts');
  // The old release's helpers (ours would install the Temporal runtime a second time in this process).
  const oldProvisioning = await previous<typeof provisioningHelpers>(previousDir, 'test/helpers/provisioning.ts');
  dataDir = mkdtempSync(join(tmpdir(), 'platform-upgrade-'));
  const base = await freePortRange(15);
  cluster = await oldCluster.startCluster({
    dataDir,
    port: base,
    apiPorts: [base + 1, base + 2],
    workers: 2,
    pgPort: base + 3,
    temporalPort: base + 4,
    // Releases that start the Temporal UI take it here; older ones ignore it.
    temporalUiPort: base + 13,
    // info: a worker is ready when it logs "worker started".
    env: { ...oldProvisioning.PROVISION_TEST_ENV, LOG_LEVEL: 'info' },
    log,
  });
  // The catalogue is set up by the old release's own code and helpers, on its own schema.
  const oldDeps = await previous<typeof appDeps>(previousDir, 'api/deps.ts');
  const oldConfig = await previous<typeof configModule>(previousDir, 'lib/config.ts');
  const oldBootstrap = await previous<typeof bootstrapModule>(previousDir, 'domain/admins/bootstrap.ts');
  const setupDeps = oldDeps.createAppDeps(oldConfig.loadConfig(cluster.env), createLogger('silent', 'upgrade-test'));
  try {
    await oldBootstrap.ensureSuperAdmin(setupDeps, ROOT_ADMIN);
    const balancer = createApiClient(cluster.url);
    const platform = {
      id: 'upgrade',
      env: cluster.env,
      deps: setupDeps,
      api: balancer,
      baseUrl: cluster.url,
      temporal: null,
      workers: [],
      relay: null,
      rootToken: async () => (await balancer.post('/api/v2/admin/login', { body: ROOT_ADMIN })).body.data.access_token as string,
      close: async () => {},
    } as unknown as TestPlatform;
    upstream = await oldProvisioning.setUpUpstreamProduct(platform, 102);
  } finally {
    await oldDeps.closeAppDeps(setupDeps);
  }
  upstream.sandbox.control.setCredit('100000000.00');
}, HOOK_TIMEOUT_MS);

afterAll(async () => {
  for (const p of upgraded) await p.stop().catch(() => null);
  await upstream?.sandbox.stop();
  await temporalConnection?.close();
  if (deps) await closeAppDeps(deps);
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (previousDir) removePreviousRelease(previousDir);
}, HOOK_TIMEOUT_MS);

describe('an upgrade from the previous release, in place, under load', () => {
  it('migrates, then rolls the workers, then the APIs to this tree: no 5xx, nothing refused, each purchase provisioned once, old workflows finish on new code', async () => {
    const c = cluster as Cluster;
    const sandbox = (upstream as UpstreamCatalogue).sandbox;
    const balancer = createApiClient(c.url);
    const rootToken = (await balancer.post('/api/v2/admin/login', { body: ROOT_ADMIN })).body.data.access_token as string;
    // Each provisioning polls the host a few times.
    sandbox.control.setProvisioningDelay({ polls: 2 });
    const stream = startStream(balancer, rootToken, (upstream as UpstreamCatalogue).productId, 3);
    try {
      await stream.more(6);
      log(`old release served ${stream.purchases.length} purchases; migrating to this tree`);
      // 1. The new release's migrations; the old processes keep serving on the new schema.
      migrateCluster(c.env);
      await stream.more(3);
      // Hosts made from here on are ready only after 90 s, so the provisionings of the next purchases are
      // in flight, started on the old workers, while the workers change.
      sandbox.control.setProvisioningDelay({ polls: 2, ms: 90_000 });
      await stream.more(2);
      // 2. Workers one at a time: SIGTERM (its grace hands back its tasks), this tree's worker in its place.
      const workersFrom = new Date();
      for (const [i, old] of c.workers.entries()) {
        await old.stop();
        const next = clusterProcess({ kind: 'worker', index: i + 1, env: c.env });
        upgraded.push(next);
        await next.start();
      }
      const oldWorkersGone = new Date();
      sandbox.control.setProvisioningDelay({ polls: 2 });
      await stream.more(3);
      // 3. APIs one at a time: a draining API answers 503 to the balancer's check and is taken out.
      for (const [i, old] of c.apis.entries()) {
        await old.stop();
        const next = clusterProcess({ kind: 'api', index: i + 1, port: Number(new URL(old.url as string).port), env: c.env });
        upgraded.push(next);
        await next.start();
        // Until the balancer has it back (rise 2, inter 1 s) before the next one goes.
        await eventually(async () => ((await fetch(`${next.url}/api/health`)).status === 200 ? true : null), 100);
        await new Promise((r) => setTimeout(r, 2500));
      }
      await stream.more(6);
      await stream.stop();
      log(`stream: ${stream.purchases.length} purchases, ${stream.renewals.length} renewals, ${stream.failures.length} failures`);
      expect(stream.failures).toEqual([]);
      expect(stream.renewals.length).toBeGreaterThan(0);

      deps = createAppDeps(loadConfig(c.env), createLogger('silent', 'upgrade-test'));
      const d = deps;
      // Every purchase provisioned, bought upstream exactly once.
      for (const invoiceId of stream.purchases) {
        const service = await eventually(async () => {
          const s = await d.db.models.Service.findOne({ where: { invoice_id: invoiceId } });
          return s && ['active', 'failed'].includes(s.status) ? s : null;
        }, 1200, 250);
        expect(service.status, `service ${service.id}: ${service.failure_code} ${service.failure_reason}`).toBe('active');
        expect(sandbox.control.ledger().purchases[service.downstream_token ?? '']).toBe(1);
      }
      // Every renewal completed, its upstream bill paid once.
      for (const invoiceId of stream.renewals) {
        const order = await eventually(async () => {
          const o = await d.db.models.ServiceOrder.findOne({ where: { invoice_id: invoiceId } });
          return o && ['succeeded', 'cancelled', 'awaiting_admin'].includes(o.status) ? o : null;
        }, 1200, 250).catch(async (err: unknown) => {
          // Say where it stopped: the order row and its history.
          const [row] = await d.db.read('SELECT * FROM service_orders WHERE invoice_id = $1', [invoiceId]);
          const events = await d.db.read('SELECT stage, status, message FROM service_events WHERE service_id = $1 ORDER BY id', [row?.['service_id'] ?? 0]);
          throw new Error(`renewal of invoice ${invoiceId} did not finish: ${JSON.stringify(row)} ${JSON.stringify(events)}`, { cause: err });
        });
        expect(order.status, `renewal of invoice ${invoiceId}`).toBe('succeeded');
      }
      const [costs] = await d.db.read<{ n: string; distinct_bills: string }>(
        "SELECT count(*) AS n, count(DISTINCT (supplier_id, upstream_invoice_id)) AS distinct_bills FROM upstream_costs WHERE kind = 'renew'",
      );
      expect(costs?.n).toBe(costs?.distinct_bills);

      // Workflows started on the old workers finished on this tree's.
      temporalConnection = await Connection.connect({ address: c.temporalAddress });
      const temporal = new Client({ connection: temporalConnection, namespace: loadConfig(c.env).temporal.namespace });
      const services = await d.db.models.Service.findAll({ where: { invoice_id: stream.purchases }, attributes: ['id'] });
      let carried = 0;
      for (const s of services) {
        // The service row turns active in the workflow's last step; the run closes on the workflow task after it
        // (under load, seconds later). One that is still open after two minutes fails below.
        const handle = temporal.workflow.getHandle(provisionWorkflowId(s.id));
        const run = await eventually(async () => {
          const d = await handle.describe();
          return d.status.name === 'RUNNING' ? null : d;
        }, 480, 250).catch(() => handle.describe());
        if (run.startTime < workersFrom && run.closeTime && run.closeTime > oldWorkersGone) carried++;
        expect(run.status.name, `provision:${s.id}`).toBe('COMPLETED');
      }
      log(`${carried} provisionings started on the old release finished on this one`);
      expect(carried).toBeGreaterThan(0);
      expect(await checkLedgerIntegrity(d)).toEqual([]);
    } finally {
      await stream.stop();
    }
  }, 1_200_000);
});
