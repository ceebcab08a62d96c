import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '../../db/sequelize.js';
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
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { money } from '../../lib/money.js';
import { createTemporalGateway } from '../../lib/temporal.js';
import { execute as financeExecute } from '../../plugins/upstream/upstream_finance/index.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { stopChild } from '../../scripts/lib/children.js';
import { startMutableNodeChild } from '../lib/node-child.js';

/** Sandbox product 102: a cloud server without stock control (every purchase can succeed). */
const UPSTREAM_PRODUCT_ID = 102;

export type ProvisioningBenchResult = {
  count: number;
  latencyMs: number;
  ours: { wallSeconds: number; perSecond: number; medianMs: number; p95Ms: number; active: number; failed: number };
  bare: { wallSeconds: number; perSecond: number; medianMs: number; p95Ms: number; completed: number };
  /** Per provisioning: end-to-end time minus the time spent inside upstream calls. */
  overhead: { medianMs: number; p95Ms: number };
  duplicatePurchases: number;
  goal: { label: string; pass: boolean };
};

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function inParallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await work(i);
    }),
  );
  return results;
}

/** Resolves when the worker process logs that it polls its queues. */
function workerStarted(worker: ReturnType<typeof startMutableNodeChild>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('worker did not start within 60 s')), 60_000);
    worker.process.stdout?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-10_000);
      if (seen.includes('"worker started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void worker.exited.then((code) => reject(new Error(`worker exited (${code})`)));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}

/**
 * The bare baseline: the same upstream sequence (login, probe, cart, checkout, pay, host detail)
 * run straight through the plugin entry, `count` at once, with no database, queue or workflow.
 */
async function runBare(baseUrl: string, count: number): Promise<ProvisioningBenchResult['bare']> {
  const config = { base_url: baseUrl, account: SANDBOX_CREDENTIALS.upstream.username, api_key: SANDBOX_CREDENTIALS.upstream.apiKey, timeout_ms: 30_000 };
  const call = async (action: string, payload: Record<string, unknown>) => {
    const result = await financeExecute({
      domain: 'upstream',
      slug: 'upstream_finance',
      key: 'upstream_finance',
      action,
      payload: { supplier_id: 'bench-bare', ...payload },
      config,
      context: { traceId: 'bench', actor: SYSTEM_ACTOR, signal: AbortSignal.timeout(60_000), urls: { publicBaseUrl: 'http://127.0.0.1:1' } },
    });
    if (!result.success) throw new Error(`${action}: ${result.message}`);
    return result.data;
  };
  const started = performance.now();
  const times = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const t0 = performance.now();
      const downstream = { token: randomBytes(16).toString('hex'), url: 'http://127.0.0.1:1', service_id: 900_000 + i };
      await call('upstream.login_check', {});
      await call('upstream.purchase_probe', { downstream });
      await call('upstream.purchase_cart', { downstream, product_id: UPSTREAM_PRODUCT_ID, billing_period: 'monthly', config: {} });
      const order = await call('upstream.purchase_checkout', { downstream });
      await call('upstream.invoice_pay', { invoice_id: order['invoice_id'] });
      await call('upstream.host_detail', { host_id: order['host_id'] });
      return performance.now() - t0;
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  return { wallSeconds, perSecond: count / wallSeconds, medianMs: percentile(times, 50), p95Ms: percentile(times, 95), completed: times.length };
}

/**
 * `count` provisionings at once against the upstream sandbox with `latencyMs` on every upstream
 * call: paid through the API (balance), provisioned by a real worker process. Prints completion
 * time, provisionings per second and the platform's own overhead per provisioning (end to end
 * minus the time inside upstream calls, read from the plugin runtime log by trace id), beside the
 * same upstream sequences run bare. Every purchase is checked to have happened exactly once.
 */
export async function runProvisioningBench(ctx: {
  api: string;
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  count: number;
  latencyMs: number;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<ProvisioningBenchResult> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress, APP_SECRET_KEY: ctx.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 8 });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  const deps: DomainDeps = { config, db, logger: createLogger('warn', 'bench-provisioning'), secretBox: createSecretBox(config.secretKey), temporal };
  const sandbox = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  let worker: ReturnType<typeof startMutableNodeChild> | null = null;
  try {
    sandbox.control.setCredit('10000000.00');
    const admin = adminAudit({ id: 0, username: 'bench' }, 'bench-provisioning');
    const plugin = (await db.models.Plugin.findOne({ where: { domain: 'upstream', slug: 'upstream_finance' } })) ?? (await installPlugin(deps, 'upstream', 'upstream_finance'));
    await updatePluginConfig(deps, plugin.id, { base_url: sandbox.baseUrl, account: SANDBOX_CREDENTIALS.upstream.username, api_key: SANDBOX_CREDENTIALS.upstream.apiKey, timeout_ms: 30_000 });
    if (plugin.status !== 'enabled') await enablePlugin(deps, plugin.id);
    const supplier = await createSupplier(deps, {
      code: `bench-${randomBytes(3).toString('hex')}`,
      name: '压测供应商',
      interface_type: 'upstream_finance_api',
      base_url: sandbox.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    });
    const { ProductMenu, ProductGroup, ProductCategory, User } = db.models;
    const menu = await ProductMenu.create({ code: `bench_${randomBytes(4).toString('hex')}`, name: '压测开通', product_type: 'cloud_server' });
    const group = await ProductGroup.create({ first_product_group_id: menu.id, name: '压测' });
    const category = await ProductCategory.create({ second_product_group_id: group.id, name: '压测' });
    const pulled = await pullSupplierProducts(deps, supplier.id, { upstream_product_ids: [UPSTREAM_PRODUCT_ID], product_group_id: category.id, price_rule: NO_MARKUP, status: 'active' }, { type: 'system', id: null, name: 'bench' });
    const productId = pulled.imported[0]?.product_id;
    if (!productId) throw new Error(`product import failed: ${JSON.stringify(pulled.skipped)}`);

    ctx.log(`provisioning: ${ctx.count} buyers with a balance and an unpaid purchase invoice each…`);
    const users = await User.bulkCreate(
      Array.from({ length: ctx.count }, (_, i) => ({ email: `provision-bench-${i}@example.test`, phone: null, nickname: `开通用户 ${i}`, password_hash: 'bench-not-a-hash', status: 'active' as const })),
    );
    const buyers = await inParallel(ctx.count, 8, async (i) => {
      const user = users[i] as (typeof users)[number];
      await adjustBalance(deps, { userId: user.id, amount: money('1000'), remark: '压测充值' }, admin);
      const token = (await issueSession(deps, 'client', user.id, { ip: '127.0.0.1', userAgent: 'bench' })).access_token;
      const { invoice } = await createPurchaseInvoice(deps, { userId: user.id, productId, billingPeriod: 'monthly', config: {}, quantity: 1 }, userAudit(user.id, 'bench'));
      return { token, invoiceId: invoice.id };
    });

    ctx.log(`provisioning: bare baseline, ${ctx.count} upstream sequences at once, ${ctx.latencyMs} ms upstream latency…`);
    sandbox.control.setLatency(ctx.latencyMs);
    const bare = await runBare(sandbox.baseUrl, ctx.count);

    ctx.log('provisioning: starting a worker process…');
    worker = startMutableNodeChild(
      'worker',
      fileURLToPath(new URL('../../activities/worker.ts', import.meta.url)),
      {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL: ctx.databaseUrl,
        TEMPORAL_ADDRESS: ctx.temporalAddress,
        APP_SECRET_KEY: ctx.secretKey,
        LOG_LEVEL: 'info',
        PROVISION_HOST_POLL_SECONDS: '1',
        DATABASE_POOL_MAX: '20',
      },
      // Its info lines would flood the bench output: only the start line is read.
      () => true,
      // BENCH_WORKER_CPU_PROF=<dir>: a V8 CPU profile of the worker, written when it stops.
      process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : [],
    );
    await workerStarted(worker, ctx.signal);

    ctx.log(`provisioning: ${ctx.count} balance payments at once through the API…`);
    const started = performance.now();
    await Promise.all(
      buyers.map(async (b) => {
        const res = await fetch(`${ctx.api}/api/v2/client/invoices/${b.invoiceId}/pay/balance`, { method: 'POST', headers: { authorization: `Bearer ${b.token}` } });
        const body = (await res.json()) as { code: number; message: string };
        if (body.code !== 0) throw new Error(`payment failed: ${body.message}`);
      }),
    );
    const invoiceIds = buyers.map((b) => b.invoiceId);
    let done = { active: 0, failed: 0 };
    for (let i = 0; i < 1200 && !ctx.signal.aborted; i++) {
      const [row] = await db.read<{ active: string; failed: string }>(
        `SELECT count(*) FILTER (WHERE status = 'active') AS active, count(*) FILTER (WHERE status IN ('failed', 'cancelled')) AS failed FROM services WHERE invoice_id = ANY($1)`,
        [invoiceIds],
      );
      done = { active: Number(row?.active ?? 0), failed: Number(row?.failed ?? 0) };
      if (done.active + done.failed >= ctx.count) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const rows = await db.read<{ e2e_ms: string; upstream_ms: string | null; token: string }>(
      `SELECT EXTRACT(EPOCH FROM (s.activated_at - i.paid_at)) * 1000 AS e2e_ms, s.downstream_token AS token,
              (SELECT sum(l.duration_ms) FROM plugin_runtime_logs l WHERE l.trace_id = 'provision:' || s.id) AS upstream_ms
         FROM services s JOIN invoices i ON i.id = s.invoice_id
        WHERE s.invoice_id = ANY($1) AND s.status = 'active'`,
      [invoiceIds],
    );
    if (process.env.BENCH_PROVISION_STAGES) {
      const stages = await db.read<{ stage: string; avg_ms: string; n: string }>(
        `WITH e AS (SELECT service_id, stage, created_at, lead(created_at) OVER (PARTITION BY service_id ORDER BY id) AS next
                      FROM service_events WHERE kind = 'provision' AND status = 'started' AND service_id IN (SELECT id FROM services WHERE invoice_id = ANY($1)))
         SELECT stage, avg(EXTRACT(EPOCH FROM (next - created_at)) * 1000) AS avg_ms, count(*) AS n FROM e GROUP BY stage ORDER BY avg_ms DESC`,
        [invoiceIds],
      );
      const first = await db.read<{ avg_ms: string; dispatch_ms: string }>(
        `SELECT avg(EXTRACT(EPOCH FROM ((SELECT min(created_at) FROM service_events e WHERE e.service_id = s.id) - i.paid_at)) * 1000) AS avg_ms,
                avg(EXTRACT(EPOCH FROM (i.dispatched_at - i.paid_at)) * 1000) AS dispatch_ms
           FROM services s JOIN invoices i ON i.id = s.invoice_id WHERE s.invoice_id = ANY($1)`,
        [invoiceIds],
      );
      ctx.log(`  paid → workflow started: ${Math.round(Number(first[0]?.dispatch_ms))} ms, → first step: ${Math.round(Number(first[0]?.avg_ms))} ms; per stage: ${stages.map((r) => `${r.stage} ${Math.round(Number(r.avg_ms))} ms`).join(', ')}`);
    }
    const e2e = rows.map((r) => Number(r.e2e_ms));
    const overhead = rows.map((r) => Number(r.e2e_ms) - Number(r.upstream_ms ?? 0));
    const purchases = sandbox.control.ledger().purchases;
    const duplicatePurchases = rows.filter((r) => (purchases[r.token] ?? 0) !== 1).length;
    const ours = { wallSeconds, perSecond: done.active / wallSeconds, medianMs: percentile(e2e, 50), p95Ms: percentile(e2e, 95), ...done };
    const result: ProvisioningBenchResult = {
      count: ctx.count,
      latencyMs: ctx.latencyMs,
      ours,
      bare,
      overhead: { medianMs: percentile(overhead, 50), p95Ms: percentile(overhead, 95) },
      duplicatePurchases,
      goal: { label: `all ${ctx.count} active, no duplicate purchase, median overhead < 300 ms`, pass: done.active === ctx.count && duplicatePurchases === 0 && percentile(overhead, 50) < 300 },
    };
    return result;
  } finally {
    sandbox.control.setLatency(0);
    if (worker) await stopChild(worker);
    await sandbox.stop();
    await temporal.close();
    await db.close();
  }
}

export function formatProvisioningTable(r: ProvisioningBenchResult): string {
  const ms = (v: number) => `${Math.round(v)} ms`;
  return [
    `开通压测 / provisioning: ${r.count} at once, upstream latency ${r.latencyMs} ms per call`,
    `  ours  (API + Temporal + worker): all done in ${r.ours.wallSeconds.toFixed(1)} s, ${r.ours.perSecond.toFixed(1)}/s, end-to-end median ${ms(r.ours.medianMs)}, p95 ${ms(r.ours.p95Ms)}; active ${r.ours.active}, failed ${r.ours.failed}`,
    `  bare  (same upstream calls, no platform): ${r.bare.wallSeconds.toFixed(1)} s, ${r.bare.perSecond.toFixed(1)}/s, median ${ms(r.bare.medianMs)}, p95 ${ms(r.bare.p95Ms)}`,
    `  platform overhead per provisioning (end to end − time in upstream calls): median ${ms(r.overhead.medianMs)}, p95 ${ms(r.overhead.p95Ms)}`,
    `  duplicate purchases: ${r.duplicatePurchases}`,
    `  goal: ${r.goal.label} → ${r.goal.pass ? 'PASS' : 'MISS'}`,
  ].join('\n');
}
