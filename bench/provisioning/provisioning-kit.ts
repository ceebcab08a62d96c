import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflows } from '../../activities/worker.js';
import type { createDatabase } from '../../db/sequelize.js';
import { adminAudit, userAudit } from '../../domain/billing/audit.js';
import { createPurchaseInvoice } from '../../domain/billing/invoices/create-purchase-invoice.js';
import { adjustBalance } from '../../domain/billing/recharge/adjust-balance.js';
import { issueSession } from '../../domain/auth/sessions.js';
import type { DomainDeps } from '../../domain/deps.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { NO_MARKUP } from '../../domain/suppliers/price-rule.js';
import { pullSupplierProducts } from '../../domain/suppliers/product-import.js';
import { createSupplier } from '../../domain/suppliers/suppliers.js';
import { money } from '../../lib/money.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { type Child, stopChild } from '../../scripts/lib/children.js';
import { startMutableNodeChild } from '../lib/node-child.js';
import { workerStarted } from '../lib/worker-started.js';

/**
 * What the provisioning benches share (./run-provisioning.ts, ./run-routing.ts): buyers with a
 * balance and an unpaid purchase invoice, the payment through the API, the wait until every
 * service is done, the timings read from the database, and the platform worker process.
 */

/** Sandbox product 102: a cloud server without stock control (every purchase can succeed). */
export const UPSTREAM_PRODUCT_ID = 102;

export type BenchDb = ReturnType<typeof createDatabase>;

/** A buyer: a session token and one unpaid purchase invoice. */
export type Buyer = { token: string; invoiceId: number };

export type Timing = { invoice_id: number; e2e_ms: string; upstream_ms: string | null; token: string };

export async function inParallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await work(i);
    }),
  );
  return results;
}

/** The upstream_finance plugin installed, enabled and configured against `baseUrl` (its default; each supplier names its own URL). */
export async function enableUpstreamPlugin(deps: DomainDeps, baseUrl: string): Promise<void> {
  const plugin = (await deps.db.models.Plugin.findOne({ where: { domain: 'upstream', slug: 'upstream_finance' } })) ?? (await installPlugin(deps, 'upstream', 'upstream_finance'));
  await updatePluginConfig(deps, plugin.id, { base_url: baseUrl, account: SANDBOX_CREDENTIALS.upstream.username, api_key: SANDBOX_CREDENTIALS.upstream.apiKey, timeout_ms: 30_000 });
  if (plugin.status !== 'enabled') await enablePlugin(deps, plugin.id);
}

/** A supplier of the upstream sandbox at `baseUrl` (a code of its own each time). */
export async function createBenchSupplier(deps: DomainDeps, baseUrl: string, name: string): Promise<number> {
  const supplier = await createSupplier(deps, {
    code: `bench-${randomBytes(3).toString('hex')}`,
    name,
    interface_type: 'upstream_finance_api',
    base_url: baseUrl,
    account: SANDBOX_CREDENTIALS.upstream.username,
    api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
  });
  return supplier.id;
}

/**
 * The supplier's product UPSTREAM_PRODUCT_ID imported (without markup) into a category of its
 * own and put on sale; answers our product's id. A supplier's upstream product is imported once:
 * another product of the same upstream product needs another supplier.
 */
export async function importBenchProduct(deps: DomainDeps, supplierId: number): Promise<number> {
  const { ProductMenu, ProductGroup, ProductCategory } = deps.db.models;
  const menu = await ProductMenu.create({ code: `bench_${randomBytes(4).toString('hex')}`, name: '压测开通', product_type: 'cloud_server' });
  const group = await ProductGroup.create({ first_product_group_id: menu.id, name: '压测' });
  const category = await ProductCategory.create({ second_product_group_id: group.id, name: '压测' });
  const pulled = await pullSupplierProducts(deps, supplierId, { upstream_product_ids: [UPSTREAM_PRODUCT_ID], product_group_id: category.id, price_rule: NO_MARKUP, status: 'active' }, { type: 'system', id: null, name: 'bench' });
  const productId = pulled.imported[0]?.product_id;
  if (!productId) throw new Error(`product import failed: ${JSON.stringify(pulled.skipped)}`);
  return productId;
}

/**
 * One buyer per entry of `productIds` (emails `<prefix>-<i>@example.test`): credited 1,000, a
 * client session, and an unpaid monthly purchase invoice of that product.
 */
export async function createBuyers(deps: DomainDeps, prefix: string, productIds: number[]): Promise<Buyer[]> {
  const admin = adminAudit({ id: 0, username: 'bench' }, `bench-${prefix}`);
  const users = await deps.db.models.User.bulkCreate(
    productIds.map((_, i) => ({ email: `${prefix}-${i}@example.test`, phone: null, nickname: `开通用户 ${i}`, password_hash: 'bench-not-a-hash', status: 'active' as const })),
  );
  return inParallel(productIds.length, 8, async (i) => {
    const user = users[i] as (typeof users)[number];
    await adjustBalance(deps, { userId: user.id, amount: money('1000'), remark: '压测充值' }, admin);
    const token = (await issueSession(deps, 'client', user.id, { ip: '127.0.0.1', userAgent: 'bench' })).access_token;
    const { invoice } = await createPurchaseInvoice(deps, { userId: user.id, productId: productIds[i] as number, billingPeriod: 'monthly', config: {}, quantity: 1 }, userAudit(user.id, 'bench'));
    return { token, invoiceId: invoice.id };
  });
}

/** End to end (payment committed → service active) and the time inside upstream calls (plugin runtime log, by trace id) of the active services of `invoiceIds`. */
export async function timingsOf(db: BenchDb, invoiceIds: number[]): Promise<Timing[]> {
  return db.read<Timing>(
    `SELECT s.invoice_id, EXTRACT(EPOCH FROM (s.activated_at - i.paid_at)) * 1000 AS e2e_ms, s.downstream_token AS token,
            (SELECT sum(l.duration_ms) FROM plugin_runtime_logs l WHERE l.trace_id = 'provision:' || s.id) AS upstream_ms
       FROM services s JOIN invoices i ON i.id = s.invoice_id
      WHERE s.invoice_id = ANY($1) AND s.status = 'active'`,
    [invoiceIds],
  );
}

/** Pays `invoiceId` by balance through the API as the buyer. */
export async function payByBalance(api: string, buyer: Buyer): Promise<void> {
  const res = await fetch(`${api}/api/v2/client/invoices/${buyer.invoiceId}/pay/balance`, { method: 'POST', headers: { authorization: `Bearer ${buyer.token}` } });
  const body = (await res.json()) as { code: number; message: string };
  if (body.code !== 0) throw new Error(`payment failed: ${body.message}`);
}

/** Polls until every service of `invoiceIds` is active or failed (every `everyMs`, at most `timeoutMs`). */
export async function waitUntilDone(db: BenchDb, invoiceIds: number[], options: { everyMs: number; timeoutMs: number; signal: AbortSignal }): Promise<{ active: number; failed: number }> {
  let done = { active: 0, failed: 0 };
  const deadline = performance.now() + options.timeoutMs;
  while (!options.signal.aborted && performance.now() < deadline) {
    const [row] = await db.read<{ active: string; failed: string }>(
      `SELECT count(*) FILTER (WHERE status = 'active') AS active, count(*) FILTER (WHERE status IN ('failed', 'cancelled')) AS failed FROM services WHERE invoice_id = ANY($1)`,
      [invoiceIds],
    );
    done = { active: Number(row?.active ?? 0), failed: Number(row?.failed ?? 0) };
    if (done.active + done.failed >= invoiceIds.length) break;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs));
  }
  return done;
}

/** The environment of a provisioning worker (and of the bare Temporal worker, which resolves the same tuning from it). */
export function provisioningWorkerEnv(ctx: { databaseUrl: string; temporalAddress: string; secretKey: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    APP_SECRET_KEY: ctx.secretKey,
    LOG_LEVEL: 'info',
    PROVISION_HOST_POLL_SECONDS: '1',
    DATABASE_POOL_MAX: '20',
  };
}

/**
 * Writes our workflow bundle to `path`: the worker loads it prebuilt, as in production (`npm run
 * build` makes dist/workflow-bundle.js); bundling with webpack inside the worker would count in its memory.
 */
export async function writeWorkflowBundle(path: string): Promise<void> {
  writeFileSync(path, (await bundleWorkflows(fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)))).code);
}

/**
 * The platform worker as a process of its own, started (polling its queues) when this resolves.
 * Its info lines would flood the bench output: only the start line is read.
 * BENCH_WORKER_CPU_PROF=<dir>: a V8 CPU profile of the worker, written when it stops; BENCH_WORKER_NODE_ARGS: more node flags.
 */
export async function startProvisioningWorker(workerEnv: NodeJS.ProcessEnv, signal: AbortSignal): Promise<Child> {
  const worker = startMutableNodeChild('worker', fileURLToPath(new URL('../../activities/worker.ts', import.meta.url)), workerEnv, () => true, [
    ...(process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : []),
    ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ]);
  try {
    await workerStarted(worker, signal);
  } catch (error) {
    await stopChild(worker);
    throw error;
  }
  return worker;
}
