import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '../../db/sequelize.js';
import { addProductAlternate } from '../../domain/catalogue/product-alternates.js';
import type { DomainDeps } from '../../domain/deps.js';
import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { createTemporalGateway } from '../../lib/temporal.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';
import { type Child, stopChild } from '../../scripts/lib/children.js';
import { percentile } from '../lib/percentile.js';
import { formatPeakRss, type PeakRss, watchPeakRss } from '../lib/rss.js';
import {
  type BenchDb,
  type Buyer,
  createBenchSupplier,
  createBuyers,
  enableUpstreamPlugin,
  importBenchProduct,
  payByBalance,
  provisioningWorkerEnv,
  startProvisioningWorker,
  timingsOf,
  UPSTREAM_PRODUCT_ID,
  waitUntilDone,
  writeWorkflowBundle,
} from './provisioning-kit.js';

/**
 * Provisioning across suppliers (issue #38; docs/benchmarks.md "Provisioning across suppliers",
 * `BENCH_ONLY=routing`). Two pairs, each figure beside a baseline of the same run doing the same
 * work, on three upstream sandboxes (A, B, C) with the same upstream latency on every call:
 * - routing cost: one provisioning alone of a product with three bindings (A, B, C; priority,
 *   as products route by default) against the same provisioning of a product with one binding
 *   (A), alternating, `samples` each: end to end (paid → active) median and p95, the time inside
 *   upstream calls, and the supplier calls each made (the sandboxes' request counters);
 * - failover under load: `count` provisionings at once of a product bound to A then B, all bought
 *   at A (the baseline), then `count` more while A refuses half of the carts (`failNext`
 *   out_of_stock on `/cart/add_to_shop`), which fail over to B: completion time and throughput.
 * Every service must end active, bought exactly once across the sandboxes at the supplier it is
 * bound to, with one attempt row per refusal and none otherwise: a failure here fails the run and
 * makes the figures invalid.
 */

/** Samples of one provisioning alone per side of the routing cost (BENCH_ROUTING_SAMPLES). */
export const ROUTING_SAMPLES = 10;

const SANDBOXES = ['A', 'B', 'C'] as const;
type SandboxName = (typeof SANDBOXES)[number];

export type Verdict = { label: string; pass: boolean };

/** Supplier calls per sandbox: request path → calls. */
export type CallCounts = Record<string, Record<string, number>>;

export type SingleSide = {
  bindings: number;
  samples: number;
  active: number;
  medianMs: number;
  p95Ms: number;
  /** Median time inside upstream calls (plugin runtime log, by trace id). */
  upstreamMedianMs: number;
  /** Mean supplier calls per provisioning, per sandbox and path (the sandboxes' counters). */
  calls: CallCounts;
};

export type LoadSide = {
  count: number;
  /** Carts the first supplier refused (out of stock) during this side. */
  refused: number;
  wallSeconds: number;
  perSecond: number;
  medianMs: number;
  p95Ms: number;
  active: number;
  failed: number;
  /** Services bought at each sandbox (A, B), by the sandboxes' ledgers. */
  boughtAt: number[];
  /** Services not bought exactly once across the sandboxes. */
  notOnce: number;
  /** Rows of `service_upstream_attempts` of these services. */
  attempts: number;
  /** The services that failed over (an attempt row): how many, and their end-to-end median. */
  failedOver: { count: number; medianMs: number };
  /** Supplier calls of the whole side, per sandbox and path. */
  calls: CallCounts;
};

export type RoutingBenchResult = {
  latencyMs: number;
  single: { one: SingleSide; three: SingleSide; addedMedianMs: number };
  load: { baseline: LoadSide; failover: LoadSide; throughputRatio: number };
  /** Why the checks failed (empty when clean). */
  problems: string[];
  check: Verdict;
  /** Peak resident set sizes of the API and the worker during both pairs. */
  rss: PeakRss;
};

/** A service of the bench as the exactly-once check reads it. */
export type ServiceOutcome = {
  invoice_id: number;
  status: string;
  token: string | null;
  /** `services.supplier_id` and the upstream binding's supplier (they must agree). */
  supplier_id: number | null;
  bound_supplier_id: number | null;
  attempts: Array<{ supplier_id: number; code: string }>;
};

export type Expectation = {
  /** What the side is called in a problem's sentence. */
  name: string;
  count: number;
  /** Carts refused at the first supplier: that many bought at the second, each with one attempt row at the first. */
  refused: number;
  /** The supplier of each sandbox, in binding order (index 0: the first binding). */
  suppliers: number[];
};

/**
 * The exactly-once check of one side: every service active; its downstream reference bought
 * once across the sandboxes (`ledgers`, in the order of `suppliers`), at the sandbox of the
 * supplier it is bound to; `refused` of them bought at the second with one attempt row each at
 * the first (out of stock), the others at the first without any.
 */
export function checkOutcomes(
  outcomes: ServiceOutcome[],
  ledgers: Array<Record<string, number>>,
  expect: Expectation,
): { boughtAt: number[]; notOnce: number; attempts: number; problems: string[] } {
  const boughtAt = ledgers.map(() => 0);
  let notOnce = 0;
  let misplaced = 0;
  let attempts = 0;
  let wrongAttempts = 0;
  for (const s of outcomes) {
    attempts += s.attempts.length;
    const counts = ledgers.map((l) => (s.token ? (l[s.token] ?? 0) : 0));
    const total = counts.reduce((a, b) => a + b, 0);
    if (total !== 1) {
      notOnce += 1;
      continue;
    }
    const at = counts.indexOf(1);
    boughtAt[at] = (boughtAt[at] ?? 0) + 1;
    const supplier = expect.suppliers[at];
    if (s.supplier_id !== supplier || s.bound_supplier_id !== supplier) misplaced += 1;
    const expectedAttempts = at === 0 ? [] : [{ supplier_id: expect.suppliers[0], code: 'out_of_stock' }];
    if (JSON.stringify(s.attempts.map((t) => ({ supplier_id: t.supplier_id, code: t.code }))) !== JSON.stringify(expectedAttempts)) wrongAttempts += 1;
  }
  const problems: string[] = [];
  const active = outcomes.filter((s) => s.status === 'active').length;
  if (outcomes.length !== expect.count || active !== expect.count) problems.push(`${expect.name}: ${active} of ${expect.count} services active`);
  if (notOnce > 0) problems.push(`${expect.name}: ${notOnce} services not bought exactly once across the sandboxes`);
  if (misplaced > 0) problems.push(`${expect.name}: ${misplaced} services bound to another supplier than the one that sold them`);
  if (wrongAttempts > 0) problems.push(`${expect.name}: ${wrongAttempts} services with other attempt rows than their failover`);
  const expectedAt = ledgers.map((_, i) => (i === 0 ? expect.count - expect.refused : i === 1 ? expect.refused : 0));
  if (boughtAt.some((n, i) => n !== expectedAt[i])) problems.push(`${expect.name}: bought ${boughtAt.join(' / ')} at ${SANDBOXES.slice(0, ledgers.length).join(' / ')}, expected ${expectedAt.join(' / ')}`);
  if (attempts !== expect.refused) problems.push(`${expect.name}: ${attempts} attempt rows, expected ${expect.refused}`);
  return { boughtAt, notOnce, attempts, problems };
}

const OUTCOMES = `SELECT s.invoice_id, s.status, s.downstream_token AS token, s.supplier_id, sb.supplier_id AS bound_supplier_id,
         COALESCE((SELECT json_agg(json_build_object('supplier_id', t.supplier_id, 'code', t.code) ORDER BY t.id)
                     FROM service_upstream_attempts t WHERE t.service_id = s.id), '[]'::json) AS attempts
    FROM services s LEFT JOIN service_upstream_bindings sb ON sb.service_id = s.id
   WHERE s.invoice_id = ANY($1)`;

async function outcomesOf(db: BenchDb, invoiceIds: number[]): Promise<ServiceOutcome[]> {
  return db.read<ServiceOutcome>(OUTCOMES, [invoiceIds]);
}

type Sandboxes = Record<SandboxName, UpstreamFinanceSandbox>;

function resetCounters(sandboxes: Sandboxes): void {
  for (const name of SANDBOXES) sandboxes[name].control.resetCounters();
}

function countersOf(sandboxes: Sandboxes, names: readonly SandboxName[]): CallCounts {
  return Object.fromEntries(names.map((name) => [name, { ...sandboxes[name].control.counters().paths }]));
}

/** Adds `calls` into `sum`, divided by `divisor` (a mean per provisioning). */
function addCalls(sum: CallCounts, calls: CallCounts, divisor: number): void {
  for (const [sandbox, paths] of Object.entries(calls)) {
    const into = (sum[sandbox] ??= {});
    for (const [path, n] of Object.entries(paths)) into[path] = (into[path] ?? 0) + n / divisor;
  }
}

export async function runRoutingBench(ctx: {
  api: string;
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  /** Provisionings at once in the failover pair (each side). */
  count: number;
  /** Provisionings alone per side of the routing cost. */
  samples: number;
  latencyMs: number;
  apiPid: number | undefined;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<RoutingBenchResult> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress, APP_SECRET_KEY: ctx.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 8 });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  const deps: DomainDeps = { config, db, logger: createLogger('warn', 'bench-routing'), secretBox: createSecretBox(config.secretKey), temporal };
  const started: UpstreamFinanceSandbox[] = [];
  const bundleDir = mkdtempSync(join(tmpdir(), 'bench-routing-bundle-'));
  let worker: Child | null = null;
  try {
    for (let i = 0; i < SANDBOXES.length; i++) started.push(await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] }));
    const sandboxes = Object.fromEntries(SANDBOXES.map((name, i) => [name, started[i] as UpstreamFinanceSandbox])) as Sandboxes;
    for (const sandbox of started) sandbox.control.setCredit('10000000.00');
    await enableUpstreamPlugin(deps, sandboxes.A.baseUrl);

    // A supplier's upstream product is imported once, so each product has its own supplier on
    // sandbox A; B and C are one supplier each, bound after it.
    const supplierOf = async (name: string, sandbox: SandboxName) => createBenchSupplier(deps, sandboxes[sandbox].baseUrl, `压测供应商 ${name}`);
    const [oneA, threeA, loadA, b, c] = [await supplierOf('A1', 'A'), await supplierOf('A3', 'A'), await supplierOf('A2', 'A'), await supplierOf('B', 'B'), await supplierOf('C', 'C')];
    const bind = async (productId: number, supplierId: number) =>
      addProductAlternate(deps, productId, { supplier_id: supplierId, upstream_product_id: String(UPSTREAM_PRODUCT_ID) }, SYSTEM_ACTOR);
    const oneProduct = await importBenchProduct(deps, oneA);
    const threeProduct = await importBenchProduct(deps, threeA);
    await bind(threeProduct, b);
    await bind(threeProduct, c);
    const loadProduct = await importBenchProduct(deps, loadA);
    await bind(loadProduct, b);

    ctx.log(`routing: ${2 * ctx.count} + ${2 * ctx.samples} buyers with a balance and an unpaid purchase invoice each…`);
    const loadBuyers = await createBuyers(deps, 'routing-bench-load', Array.from({ length: 2 * ctx.count }, () => loadProduct));
    const singleBuyers = await createBuyers(deps, 'routing-bench-single', Array.from({ length: 2 * ctx.samples }, (_, i) => (i % 2 === 0 ? oneProduct : threeProduct)));

    const workerEnv = provisioningWorkerEnv(ctx);
    ctx.log('routing: bundling the worker\'s workflow code…');
    workerEnv.WORKFLOW_BUNDLE_PATH = join(bundleDir, 'workflow-bundle.js');
    await writeWorkflowBundle(workerEnv.WORKFLOW_BUNDLE_PATH);
    ctx.log('routing: starting a worker process…');
    worker = await startProvisioningWorker(workerEnv, ctx.signal);
    const rss = watchPeakRss({ api: ctx.apiPid, worker: worker.process.pid });
    for (const sandbox of started) sandbox.control.setLatency(ctx.latencyMs);

    const problems: string[] = [];
    const ledgersOf = (names: readonly SandboxName[]) => names.map((name) => sandboxes[name].control.ledger().purchases);

    /** `count` at once; the first supplier refuses the first `refused` carts. */
    const loadSide = async (name: string, buyers: Buyer[], refused: number): Promise<LoadSide> => {
      resetCounters(sandboxes);
      if (refused > 0) sandboxes.A.control.failNext(refused, 'out_of_stock', { path: '/cart/add_to_shop' });
      ctx.log(`routing: ${name}, ${buyers.length} balance payments at once through the API…`);
      const t0 = performance.now();
      await Promise.all(buyers.map((buyer) => payByBalance(ctx.api, buyer)));
      const invoiceIds = buyers.map((buyer) => buyer.invoiceId);
      const done = await waitUntilDone(db, invoiceIds, { everyMs: 100, timeoutMs: 300_000, signal: ctx.signal });
      const wallSeconds = (performance.now() - t0) / 1000;
      sandboxes.A.control.clearFaults();
      const calls = countersOf(sandboxes, ['A', 'B']);
      const outcomes = await outcomesOf(db, invoiceIds);
      const checked = checkOutcomes(outcomes, ledgersOf(['A', 'B']), { name, count: buyers.length, refused, suppliers: [loadA, b] });
      problems.push(...checked.problems);
      const timings = await timingsOf(db, invoiceIds);
      const failedOverInvoices = new Set(outcomes.filter((s) => s.attempts.length > 0).map((s) => s.invoice_id));
      const e2e = timings.map((t) => Number(t.e2e_ms));
      const failedOver = timings.filter((t) => failedOverInvoices.has(t.invoice_id)).map((t) => Number(t.e2e_ms));
      return {
        count: buyers.length,
        refused,
        wallSeconds,
        perSecond: done.active / wallSeconds,
        medianMs: percentile(e2e, 50),
        p95Ms: percentile(e2e, 95),
        ...done,
        boughtAt: checked.boughtAt,
        notOnce: checked.notOnce,
        attempts: checked.attempts,
        failedOver: { count: failedOverInvoices.size, medianMs: percentile(failedOver, 50) },
        calls,
      };
    };
    const refused = Math.floor(ctx.count / 2);
    const baseline = await loadSide(`${ctx.count} at once, all bought at A`, loadBuyers.slice(0, ctx.count), 0);
    const failover = await loadSide(`${ctx.count} at once, A refuses ${refused} carts`, loadBuyers.slice(ctx.count), refused);

    ctx.log(`routing: ${ctx.samples} alone with one binding and ${ctx.samples} with three, alternating…`);
    const sides = {
      one: { bindings: 1, suppliers: [oneA], sandboxes: ['A'] as const, buyers: [] as Buyer[], calls: {} as CallCounts },
      three: { bindings: 3, suppliers: [threeA, b, c], sandboxes: SANDBOXES, buyers: [] as Buyer[], calls: {} as CallCounts },
    };
    for (let i = 0; i < ctx.samples; i++) {
      for (const side of [sides.one, sides.three]) {
        const buyer = singleBuyers[2 * i + (side === sides.one ? 0 : 1)] as Buyer;
        side.buyers.push(buyer);
        resetCounters(sandboxes);
        await payByBalance(ctx.api, buyer);
        await waitUntilDone(db, [buyer.invoiceId], { everyMs: 20, timeoutMs: 120_000, signal: ctx.signal });
        addCalls(side.calls, countersOf(sandboxes, SANDBOXES), ctx.samples);
      }
    }
    const singleSide = async (name: string, side: typeof sides.one | typeof sides.three): Promise<SingleSide> => {
      const invoiceIds = side.buyers.map((buyer) => buyer.invoiceId);
      const outcomes = await outcomesOf(db, invoiceIds);
      problems.push(...checkOutcomes(outcomes, ledgersOf(side.sandboxes), { name, count: ctx.samples, refused: 0, suppliers: side.suppliers }).problems);
      const timings = await timingsOf(db, invoiceIds);
      return {
        bindings: side.bindings,
        samples: ctx.samples,
        active: timings.length,
        medianMs: percentile(timings.map((t) => Number(t.e2e_ms)), 50),
        p95Ms: percentile(timings.map((t) => Number(t.e2e_ms)), 95),
        upstreamMedianMs: percentile(timings.map((t) => Number(t.upstream_ms ?? 0)), 50),
        calls: side.calls,
      };
    };
    const one = await singleSide('one alone with one binding', sides.one);
    const three = await singleSide('one alone with three bindings', sides.three);

    return {
      latencyMs: ctx.latencyMs,
      single: { one, three, addedMedianMs: three.medianMs - one.medianMs },
      load: { baseline, failover, throughputRatio: baseline.perSecond > 0 ? failover.perSecond / baseline.perSecond : 0 },
      problems,
      check: {
        label: `every service active, bought exactly once across the sandboxes where it is bound, ${refused} attempt rows under failover and none otherwise`,
        pass: problems.length === 0,
      },
      rss: rss.stop(),
    };
  } finally {
    if (worker) await stopChild(worker);
    for (const sandbox of started) {
      sandbox.control.setLatency(0);
      await sandbox.stop();
    }
    await temporal.close();
    await db.close();
    rmSync(bundleDir, { recursive: true, force: true });
  }
}

/** The supplier calls of each side per request path: one column per side and sandbox. */
function formatCalls(columns: Array<{ label: string; calls: Record<string, number> }>, indent: string): string[] {
  const paths = [...new Set(columns.flatMap((c) => Object.keys(c.calls)))].sort();
  const width = Math.max(5, ...paths.map((p) => p.length));
  const cell = (n: number | undefined, w: number) => (n === undefined || n === 0 ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(1)).padStart(w);
  const widths = columns.map((c) => Math.max(c.label.length, 5));
  const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);
  return [
    `${indent}${'path'.padEnd(width)}  ${columns.map((c, i) => c.label.padStart(widths[i] as number)).join('  ')}`,
    ...paths.map((p) => `${indent}${p.padEnd(width)}  ${columns.map((c, i) => cell(c.calls[p], widths[i] as number)).join('  ')}`),
    `${indent}${'total'.padEnd(width)}  ${columns.map((c, i) => cell(total(c.calls), widths[i] as number)).join('  ')}`,
  ];
}

export function formatRoutingTable(r: RoutingBenchResult): string {
  const ms = (v: number) => `${Math.round(v)} ms`;
  const { one, three } = r.single;
  const { baseline, failover } = r.load;
  const load = (label: string, s: LoadSide) =>
    `  ${label}: all done in ${s.wallSeconds.toFixed(1)} s, ${s.perSecond.toFixed(1)}/s, end-to-end median ${ms(s.medianMs)}, p95 ${ms(s.p95Ms)}; active ${s.active}, failed ${s.failed}; bought at A / B ${s.boughtAt.join(' / ')}, attempt rows ${s.attempts}, not bought exactly once ${s.notOnce}` +
    (s.failedOver.count > 0 ? `; the ${s.failedOver.count} failed over: median ${ms(s.failedOver.medianMs)}` : '');
  const invalid = r.check.pass ? [] : ['  !!! 检查失败 / CHECKS FAILED: these figures are NOT valid', ...r.problems.map((p) => `    - ${p}`)];
  return [
    `多供应商开通 / provisioning across suppliers (issue #38): upstream latency ${r.latencyMs} ms per call on sandboxes A, B, C`,
    ...invalid,
    `  one alone, routing cost (${one.samples} each, alternating; end to end paid → active; priority routing):`,
    `    one binding (A):           median ${ms(one.medianMs)}, p95 ${ms(one.p95Ms)}, in upstream calls ${ms(one.upstreamMedianMs)}; active ${one.active}/${one.samples}`,
    `    three bindings (A, B, C):  median ${ms(three.medianMs)}, p95 ${ms(three.p95Ms)}, in upstream calls ${ms(three.upstreamMedianMs)}; active ${three.active}/${three.samples}`,
    `    three bindings − one: median ${r.single.addedMedianMs >= 0 ? '+' : ''}${ms(r.single.addedMedianMs)}`,
    `    supplier calls per provisioning (the sandboxes' counters, mean of ${one.samples}):`,
    ...formatCalls(
      [
        { label: 'one: A', calls: one.calls['A'] ?? {} },
        ...SANDBOXES.map((name) => ({ label: `three: ${name}`, calls: three.calls[name] ?? {} })),
      ],
      '      ',
    ),
    `  failover under load: ${baseline.count} at once, a product bound to A then B:`,
    load('baseline, all bought at A    ', baseline),
    load(`A refuses ${String(failover.refused).padEnd(3)} carts (→ B)`, failover),
    `  failover / baseline throughput ${(r.load.throughputRatio * 100).toFixed(1)}%; supplier calls A / B: baseline ${callTotal(baseline.calls['A'])} / ${callTotal(baseline.calls['B'])}, failover ${callTotal(failover.calls['A'])} / ${callTotal(failover.calls['B'])}`,
    `  检查 / check: ${r.check.label} → ${r.check.pass ? 'PASS' : 'FAIL (fails the run; the figures above are not valid)'}`,
    `  ${formatPeakRss(r.rss)}`,
  ].join('\n');
}

function callTotal(calls: Record<string, number> | undefined): number {
  return Object.values(calls ?? {}).reduce((a, b) => a + b, 0);
}
