import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { createDatabase } from '../../db/sequelize.js';
import type { DomainDeps } from '../../domain/deps.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { createTemporalGateway } from '../../lib/temporal.js';
import { execute as financeExecute } from '../../plugins/upstream/upstream_finance/index.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { type Child, stopChild } from '../../scripts/lib/children.js';
import { percentile } from '../lib/percentile.js';
import { formatPeakRss, mergePeakRss, type PeakRss, watchPeakRss } from '../lib/rss.js';
import { PROVISIONING_STEPS } from './bare-steps.js';
import { type BareTemporalResult, runBareTemporal } from './bare-temporal.js';
import {
  createBenchSupplier,
  createBuyers,
  enableUpstreamPlugin,
  importBenchProduct,
  payByBalance,
  provisioningWorkerEnv,
  startProvisioningWorker,
  type Timing,
  timingsOf,
  UPSTREAM_PRODUCT_ID,
  waitUntilDone,
  writeWorkflowBundle,
} from './provisioning-kit.js';

/** The workflow bundles of our worker and of the bare Temporal worker, written to a temporary folder. */
async function prebuildBundles(): Promise<{ ours: string; bare: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const ours = join(dir, 'workflow-bundle.js');
  const bare = join(dir, 'bare-workflow-bundle.js');
  await writeWorkflowBundle(ours);
  const bareCode = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('WARN') });
  writeFileSync(bare, bareCode.code);
  return { ours, bare, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Targets (issue #19): reported, never failing the run. */
const MIN_RATIO_OF_BARE_TEMPORAL = 0.7;
const MAX_SINGLE_OVERHEAD_MS = 150;
/** Provisionings alone with the funds check, and as many without, in the funds-check figure. */
const FUNDS_CHECK_SAMPLES = 5;

type Verdict = { label: string; pass: boolean };

export type ProvisioningBenchResult = {
  count: number;
  latencyMs: number;
  /** WORKER_CONCURRENCY of both workers (ours and the bare Temporal one), tuned by activities/worker-tuning.ts. */
  workerConcurrency: number;
  ours: { wallSeconds: number; perSecond: number; medianMs: number; p95Ms: number; active: number; failed: number };
  /** The same number of bare workflows (one waiting local activity per step of ours) on the same Temporal server. */
  bareTemporal: Omit<BareTemporalResult, 'single' | 'rss'>;
  /** The same upstream calls from this process, without Temporal or the platform. */
  bare: { wallSeconds: number; perSecond: number; medianMs: number; p95Ms: number; completed: number; callsPerProvisioning: number };
  /** ours / bare Temporal provisionings per second. */
  throughputRatio: number;
  /** Per provisioning, with `count` at once: end-to-end time minus the time spent inside upstream calls. */
  overhead: { medianMs: number; p95Ms: number };
  /** One provisioning alone, after the others: ours (a fresh buyer pays one invoice) and one bare Temporal workflow. */
  single: {
    ours: { endToEndMs: number; upstreamMs: number; overheadMs: number; active: boolean };
    bareTemporal: BareTemporalResult['single'];
  };
  /**
   * One provisioning alone with the funds check before its upstream payment (issue #29: one
   * upstream balance read and one statement) and without it (the sandbox leaves the bill's total
   * out of its settle answer, so there is nothing to check), alternating, on the same worker:
   * medians of `samples` each.
   */
  fundsCheck: { samples: number; withMs: number; withoutMs: number; upstreamWithMs: number; upstreamWithoutMs: number; addedMs: number };
  duplicatePurchases: number;
  /** Targets, PASS/MISS. */
  goals: { throughput: Verdict; singleOverhead: Verdict };
  /** All active and no duplicate purchase: a failure here fails the run. */
  check: Verdict;
  /** Peak resident set sizes: API and our worker while ours ran, the bare Temporal worker while it ran. */
  rss: PeakRss;
};

/**
 * The bare baseline: the same upstream sequence (login, probe, cart, checkout, credit, pay, host detail)
 * run straight through the plugin entry, `count` at once, with no database, queue or workflow.
 */
async function runBare(baseUrl: string, count: number): Promise<ProvisioningBenchResult['bare']> {
  const config = { base_url: baseUrl, account: SANDBOX_CREDENTIALS.upstream.username, api_key: SANDBOX_CREDENTIALS.upstream.apiKey, timeout_ms: 30_000 };
  let calls = 0;
  const call = async (action: string, payload: Record<string, unknown>) => {
    calls += 1;
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
      await call('upstream.credit', {});
      await call('upstream.invoice_pay', { invoice_id: order['invoice_id'] });
      await call('upstream.host_detail', { host_id: order['host_id'] });
      return performance.now() - t0;
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  return { wallSeconds, perSecond: count / wallSeconds, medianMs: percentile(times, 50), p95Ms: percentile(times, 95), completed: times.length, callsPerProvisioning: calls / count };
}

/**
 * `count` provisionings at once against the upstream sandbox with `latencyMs` on every upstream
 * call: paid through the API (balance), provisioned by a real worker process; then one alone (a
 * fresh buyer). Prints completion time, provisionings per second and the platform's own overhead
 * per provisioning (end to end minus the time inside upstream calls, read from the plugin runtime
 * log by trace id), beside two baselines of the same run: the same upstream sequences made bare,
 * and bare Temporal (the same number of workflows, one local activity per step of ours that only
 * waits, on the same server, by a worker of its own with the same tuning; bare-temporal.ts).
 * Every purchase is checked to have happened exactly once.
 */
export async function runProvisioningBench(ctx: {
  api: string;
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  count: number;
  latencyMs: number;
  /** Provisionings alone with and without the funds check, each (FUNDS_CHECK_SAMPLES). */
  fundsSamples?: number;
  /** Pid of the API process (its resident set size is sampled while ours runs). */
  apiPid: number | undefined;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<ProvisioningBenchResult> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress, APP_SECRET_KEY: ctx.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 8 });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  const deps: DomainDeps = { config, db, logger: createLogger('warn', 'bench-provisioning'), secretBox: createSecretBox(config.secretKey), temporal };
  const sandbox = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  let worker: Child | null = null;
  let removeBundles = () => {};
  try {
    sandbox.control.setCredit('10000000.00');
    await enableUpstreamPlugin(deps, sandbox.baseUrl);
    const supplierId = await createBenchSupplier(deps, sandbox.baseUrl, '压测供应商');
    const productId = await importBenchProduct(deps, supplierId);

    // One buyer more than `count`: the last provisions alone, after the others; then the pairs
    // alone with and without the funds check.
    const fundsSamples = ctx.fundsSamples ?? FUNDS_CHECK_SAMPLES;
    ctx.log(`provisioning: ${ctx.count} + 1 + ${2 * fundsSamples} buyers with a balance and an unpaid purchase invoice each…`);
    const everyone = await createBuyers(deps, 'provision-bench', Array.from({ length: ctx.count + 1 + 2 * fundsSamples }, () => productId));
    const buyers = everyone.slice(0, ctx.count);
    const alone = everyone[ctx.count] as (typeof everyone)[number];
    const fundsBuyers = everyone.slice(ctx.count + 1);

    ctx.log(`provisioning: bare baseline, ${ctx.count} upstream sequences at once, ${ctx.latencyMs} ms upstream latency…`);
    sandbox.control.setLatency(ctx.latencyMs);
    const bare = await runBare(sandbox.baseUrl, ctx.count);

    // Both workers resolve their tuning (WORKER_CONCURRENCY) from this same environment.
    const workerEnv = provisioningWorkerEnv(ctx);
    // Both workers load a prebuilt workflow bundle, as in production (`npm run build` makes
    // dist/workflow-bundle.js): bundling with webpack inside the worker would count in its memory.
    ctx.log('provisioning: bundling both workers\' workflow code…');
    const bundles = await prebuildBundles();
    removeBundles = bundles.remove;
    workerEnv.WORKFLOW_BUNDLE_PATH = bundles.ours;
    workerEnv.BARE_WORKFLOW_BUNDLE_PATH = bundles.bare;
    const workerConcurrency = loadConfig(workerEnv).temporal.workerConcurrency;
    const bareTemporal = await runBareTemporal({
      temporalAddress: ctx.temporalAddress,
      namespace: config.temporal.namespace,
      workerEnv,
      steps: PROVISIONING_STEPS,
      count: ctx.count,
      latencyMs: ctx.latencyMs,
      signal: ctx.signal,
      log: ctx.log,
    });

    ctx.log('provisioning: starting a worker process…');
    worker = await startProvisioningWorker(workerEnv, ctx.signal);
    const rss = watchPeakRss({ api: ctx.apiPid, worker: worker.process.pid });

    ctx.log(`provisioning: ${ctx.count} balance payments at once through the API…`);
    const started = performance.now();
    await Promise.all(buyers.map((b) => payByBalance(ctx.api, b)));
    const invoiceIds = buyers.map((b) => b.invoiceId);
    const done = await waitUntilDone(db, invoiceIds, { everyMs: 100, timeoutMs: 300_000, signal: ctx.signal });
    const wallSeconds = (performance.now() - started) / 1000;
    const rows = await timingsOf(db, invoiceIds);
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

    // One alone, on the worker that just ran the others: its end to end (the database's own
    // timestamps, so polling often only ends the wait sooner) minus its time in upstream calls.
    ctx.log('provisioning: one alone (a fresh buyer pays one invoice)…');
    await payByBalance(ctx.api, alone);
    const aloneDone = await waitUntilDone(db, [alone.invoiceId], { everyMs: 20, timeoutMs: 120_000, signal: ctx.signal });
    const [aloneTiming] = await timingsOf(db, [alone.invoiceId]);

    ctx.log(`provisioning: ${fundsSamples} alone with the funds check and ${fundsSamples} without, alternating…`);
    const fundsTimings: { with: Timing[]; without: Timing[] } = { with: [], without: [] };
    for (let i = 0; i < fundsSamples; i++) {
      for (const checked of [true, false]) {
        const buyer = fundsBuyers[2 * i + (checked ? 0 : 1)] as (typeof fundsBuyers)[number];
        sandbox.control.omitSettleTotal(!checked);
        await payByBalance(ctx.api, buyer);
        await waitUntilDone(db, [buyer.invoiceId], { everyMs: 20, timeoutMs: 120_000, signal: ctx.signal });
        const [timing] = await timingsOf(db, [buyer.invoiceId]);
        if (timing) fundsTimings[checked ? 'with' : 'without'].push(timing);
      }
    }
    sandbox.control.omitSettleTotal(false);
    const median = (ts: Timing[], pick: (t: Timing) => number) => (ts.length > 0 ? percentile(ts.map(pick), 50) : Number.NaN);
    const fundsCheck = {
      samples: fundsSamples,
      withMs: median(fundsTimings.with, (t) => Number(t.e2e_ms)),
      withoutMs: median(fundsTimings.without, (t) => Number(t.e2e_ms)),
      upstreamWithMs: median(fundsTimings.with, (t) => Number(t.upstream_ms ?? 0)),
      upstreamWithoutMs: median(fundsTimings.without, (t) => Number(t.upstream_ms ?? 0)),
      addedMs: 0,
    };
    fundsCheck.addedMs = fundsCheck.withMs - fundsCheck.withoutMs;
    const fundsComplete = fundsTimings.with.length === fundsSamples && fundsTimings.without.length === fundsSamples;
    const oursRss = rss.stop();

    const e2e = rows.map((r) => Number(r.e2e_ms));
    const overhead = rows.map((r) => Number(r.e2e_ms) - Number(r.upstream_ms ?? 0));
    const purchases = sandbox.control.ledger().purchases;
    const duplicatePurchases = [...rows, ...(aloneTiming ? [aloneTiming] : []), ...fundsTimings.with, ...fundsTimings.without].filter((r) => (purchases[r.token] ?? 0) !== 1).length;
    const ours = { wallSeconds, perSecond: done.active / wallSeconds, medianMs: percentile(e2e, 50), p95Ms: percentile(e2e, 95), ...done };
    const single = {
      endToEndMs: Number(aloneTiming?.e2e_ms ?? Number.NaN),
      upstreamMs: Number(aloneTiming?.upstream_ms ?? 0),
      overheadMs: Number(aloneTiming?.e2e_ms ?? Number.NaN) - Number(aloneTiming?.upstream_ms ?? 0),
      active: aloneDone.active === 1 && aloneTiming !== undefined,
    };
    const { single: bareSingle, rss: bareRss, ...bareTemporalFigures } = bareTemporal;
    const throughputRatio = bareTemporal.perSecond > 0 ? ours.perSecond / bareTemporal.perSecond : 0;
    const allActive = done.active === ctx.count && single.active && fundsComplete;
    return {
      count: ctx.count,
      latencyMs: ctx.latencyMs,
      workerConcurrency,
      ours,
      bareTemporal: bareTemporalFigures,
      bare,
      throughputRatio,
      overhead: { medianMs: percentile(overhead, 50), p95Ms: percentile(overhead, 95) },
      single: { ours: single, bareTemporal: bareSingle },
      fundsCheck,
      duplicatePurchases,
      goals: {
        throughput: {
          label: `${ctx.count} at once ≥ ${MIN_RATIO_OF_BARE_TEMPORAL * 100}% of the bare Temporal throughput`,
          pass: done.active === ctx.count && throughputRatio >= MIN_RATIO_OF_BARE_TEMPORAL,
        },
        singleOverhead: { label: `one provisioning alone: overhead < ${MAX_SINGLE_OVERHEAD_MS} ms`, pass: single.active && single.overheadMs < MAX_SINGLE_OVERHEAD_MS },
      },
      check: { label: `all ${ctx.count} + 1 + ${2 * fundsSamples} active, no duplicate purchase`, pass: allActive && duplicatePurchases === 0 },
      rss: mergePeakRss(oursRss, bareRss),
    };
  } finally {
    sandbox.control.setLatency(0);
    if (worker) await stopChild(worker);
    await sandbox.stop();
    await temporal.close();
    await db.close();
    removeBundles();
  }
}

export function formatProvisioningTable(r: ProvisioningBenchResult): string {
  const ms = (v: number) => `${Math.round(v)} ms`;
  const verdict = (v: Verdict) => `${v.label} → ${v.pass ? 'PASS' : 'MISS'}`;
  const bt = r.bareTemporal;
  const calls = bt.steps.upstreamCalls === r.bare.callsPerProvisioning ? '' : ` (!! the bare calls made ${r.bare.callsPerProvisioning} per provisioning: update PROVISIONING_STEPS)`;
  return [
    `开通压测 / provisioning: ${r.count} at once, upstream latency ${r.latencyMs} ms per call, WORKER_CONCURRENCY ${r.workerConcurrency} (both workers)`,
    `  ours  (API + Temporal + worker): all done in ${r.ours.wallSeconds.toFixed(1)} s, ${r.ours.perSecond.toFixed(1)}/s, end-to-end median ${ms(r.ours.medianMs)}, p95 ${ms(r.ours.p95Ms)}; active ${r.ours.active}, failed ${r.ours.failed}`,
    `  bare Temporal (same server and tuning, ${bt.steps.localActivities} local activities that only wait, ${bt.steps.upstreamCalls} × ${r.latencyMs} ms)${calls}: ${bt.wallSeconds.toFixed(1)} s, ${bt.perSecond.toFixed(1)}/s, median ${ms(bt.medianMs)}, p95 ${ms(bt.p95Ms)}; completed ${bt.completed}`,
    `  bare calls (same ${r.bare.callsPerProvisioning} upstream calls, no platform): ${r.bare.wallSeconds.toFixed(1)} s, ${r.bare.perSecond.toFixed(1)}/s, median ${ms(r.bare.medianMs)}, p95 ${ms(r.bare.p95Ms)}`,
    `  ours/bare Temporal throughput ${(r.throughputRatio * 100).toFixed(1)}%`,
    `  platform overhead per provisioning, ${r.count} at once (end to end − time in upstream calls): median ${ms(r.overhead.medianMs)}, p95 ${ms(r.overhead.p95Ms)}`,
    `  one alone: ours end to end ${ms(r.single.ours.endToEndMs)}, in upstream calls ${ms(r.single.ours.upstreamMs)}, overhead ${ms(r.single.ours.overheadMs)}${r.single.ours.active ? '' : ' (NOT active)'}; bare Temporal end to end ${ms(r.single.bareTemporal.endToEndMs)}, waited ${ms(r.single.bareTemporal.waitedMs)}, overhead ${ms(r.single.bareTemporal.overheadMs)}`,
    `  one alone with / without the funds check (median of ${r.fundsCheck.samples} each, alternating): end to end ${ms(r.fundsCheck.withMs)} / ${ms(r.fundsCheck.withoutMs)}, in upstream calls ${ms(r.fundsCheck.upstreamWithMs)} / ${ms(r.fundsCheck.upstreamWithoutMs)}; the check adds ${ms(r.fundsCheck.addedMs)}`,
    `  duplicate purchases: ${r.duplicatePurchases}`,
    `  目标 / target: ${verdict(r.goals.throughput)}`,
    `  目标 / target: ${verdict(r.goals.singleOverhead)}`,
    `  检查 / check: ${r.check.label} → ${r.check.pass ? 'PASS' : 'FAIL (fails the run)'}`,
    `  ${formatPeakRss(r.rss)}`,
  ].join('\n');
}
