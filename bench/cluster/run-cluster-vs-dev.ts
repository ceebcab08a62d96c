import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_DATABASES, ClusterUnavailableError, ensureHaproxy } from '../../scripts/lib/cluster.js';
import { embeddedPostgresUrl } from '../../scripts/lib/postgres.js';
import { ensureTemporalServer, TemporalBuildError } from '../../scripts/lib/temporal-cluster.js';
import { freshDevEnvironment, type LauncherRun, NOT_INHERITED, removeDataDir, spawnLauncher, stopLauncher, waitForLine, waitUntilUp } from '../dev-start/run-dev-start.js';
import { ensureBuilt } from '../lib/built.js';
import { type PurchasesResult, runPurchases } from './purchases.js';

/** The line scripts/cluster.ts prints once the balancer answers. */
const CLUSTER_UP_LINE = /cluster is up(?: \((\d+(?:\.\d+)?) s\))?/;
/** The cluster's sandbox ports (scripts/lib/demo-sandboxes.ts, prefix CLUSTER_SANDBOX), in the order they are handed out. */
const CLUSTER_SANDBOXES = ['QRPAY', 'CERTIFY', 'SMS', 'MAIL', 'SMTP', 'UPSTREAM', 'UPSTREAM2'] as const;
/** The Temporal server's frontend port and the eight after it (scripts/lib/temporal-cluster.ts temporalServerEnv). */
const TEMPORAL_PORTS = 9;
const ADMIN_USERNAME = 'admin';

export type PurchaseSide = {
  /** What ran: `npm run dev` or `npm run cluster`. */
  label: string;
  /** Spawn → its "up" line. */
  startSeconds: number | null;
  purchases: PurchasesResult | null;
  /** Why the side has no figures: it threw (counted as a failure), or, for the cluster, could not start (skipped). */
  error: string | null;
};

export type ClusterVsDevResult = {
  total: number;
  concurrency: number;
  dev: PurchaseSide;
  cluster: PurchaseSide;
  /** The cluster could not start (no HAProxy, no Temporal server build, a failed start): the side is skipped, not failed. */
  clusterSkipped: string | null;
  /** cluster / dev, purchases per second and provisionings per second (null without both). */
  ratio: number | null;
  provisionedRatio: number | null;
  /** Failed purchases, services that did not end active, and a side that threw: the run fails on any. */
  failed: number;
};

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive free ports below 32768 (as test/cluster/cluster.test.ts picks them): the
 * Temporal server takes nine in a row and stores its membership ports as SMALLINT.
 */
async function consecutiveFreePorts(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * (12_000 - count));
    const all = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (all.every(Boolean)) return base;
  }
}

function failuresOf(side: PurchaseSide): number {
  if (side.error !== null) return 1;
  const p = side.purchases;
  if (!p) return 0;
  const notActive = p.active === undefined ? 0 : p.total - p.failed - p.active;
  return p.failed + notActive;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

type Ctx = { total: number; concurrency: number; signal: AbortSignal; log: (m: string) => void };

/** `npm run dev` on a fresh DATA_DIR with every port free, the purchases against its API, then Ctrl-C and the folder removed. */
async function devSide(ctx: Ctx, adminPassword: string): Promise<PurchaseSide> {
  const label = 'npm run dev';
  const { dataDir, env } = await freshDevEnvironment({ ADMIN_USERNAME, ADMIN_PASSWORD: adminPassword });
  let run: LauncherRun | null = null;
  try {
    ctx.log(`cluster beside dev: ${label} (DATA_DIR ${dataDir}, API on ${env.PORT})…`);
    run = spawnLauncher(env);
    const up = await waitUntilUp(run, performance.now(), 600_000, ctx.signal);
    ctx.log(`  up after ${up.seconds.toFixed(1)} s; ${ctx.total} purchases…`);
    const purchases = await runPurchases({
      baseUrl: `http://127.0.0.1:${env.PORT}`,
      adminUsername: ADMIN_USERNAME,
      adminPassword,
      upstreamControlUrl: `http://127.0.0.1:${env.SANDBOX_UPSTREAM_PORT}`,
      total: ctx.total,
      concurrency: ctx.concurrency,
      // scripts/dev.ts: its embedded PostgreSQL on PG_PORT, database `platform`.
      databaseUrl: embeddedPostgresUrl(Number(env.PG_PORT), 'platform'),
      signal: ctx.signal,
      log: (m) => ctx.log(`  ${m}`),
    });
    return { label, startSeconds: up.seconds, purchases, error: null };
  } catch (err) {
    ctx.signal.throwIfAborted();
    ctx.log(`  ${label} failed: ${message(err)}`);
    return { label, startSeconds: null, purchases: null, error: message(err) };
  } finally {
    ctx.log(`  stopping ${label} (SIGINT)…`);
    if (run) await stopLauncher(run);
    removeDataDir(dataDir);
  }
}

/**
 * `npm run cluster` on a fresh CLUSTER_DATA_DIR with every port free (below 32768), the purchases
 * through its balancer, then Ctrl-C and the folder removed. A cluster that cannot start is skipped.
 */
async function clusterSide(ctx: Ctx, adminPassword: string): Promise<{ side: PurchaseSide; skipped: string | null }> {
  const label = 'npm run cluster';
  const skip = (why: string) => {
    ctx.log(`  ${label} skipped: ${why}`);
    return { side: { label, startSeconds: null, purchases: null, error: null }, skipped: why };
  };
  // What the cluster test checks first: without these the cluster cannot start at all.
  try {
    ensureHaproxy(ctx.log);
    ensureTemporalServer(ctx.log);
  } catch (err) {
    if (err instanceof ClusterUnavailableError || err instanceof TemporalBuildError) return skip(err.message);
    throw err;
  }
  // scripts/cluster.ts runs the APIs and workers from dist/: the bench's one build (and its stamp, so the cluster does not build again).
  ensureBuilt(ctx.log);

  const apis = Number(process.env.CLUSTER_APIS ?? 2);
  const apiCount = Number.isInteger(apis) && apis >= 1 && apis <= 16 ? apis : 2;
  const base = await consecutiveFreePorts(1 + apiCount + 1 + TEMPORAL_PORTS + CLUSTER_SANDBOXES.length + 1);
  const ports = {
    balancer: base,
    apiBase: base + 1,
    pg: base + 1 + apiCount,
    temporal: base + 2 + apiCount,
    sandboxBase: base + 2 + apiCount + TEMPORAL_PORTS,
    temporalUi: base + 2 + apiCount + TEMPORAL_PORTS + CLUSTER_SANDBOXES.length,
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-cluster-bench-'));
  // As for dev: as root PostgreSQL runs as its own user, which must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLUSTER_DATA_DIR: dataDir,
    CLUSTER_PORT: String(ports.balancer),
    CLUSTER_API_PORT: String(ports.apiBase),
    CLUSTER_PG_PORT: String(ports.pg),
    CLUSTER_TEMPORAL_PORT: String(ports.temporal),
    CLUSTER_TEMPORAL_UI_PORT: String(ports.temporalUi),
    ...Object.fromEntries(CLUSTER_SANDBOXES.map((name, i) => [`CLUSTER_SANDBOX_${name}_PORT`, String(ports.sandboxBase + i)])),
    ADMIN_USERNAME,
    ADMIN_PASSWORD: adminPassword,
  };
  for (const name of NOT_INHERITED) delete env[name];
  const upstreamPort = ports.sandboxBase + CLUSTER_SANDBOXES.indexOf('UPSTREAM');

  let run: LauncherRun | null = null;
  try {
    ctx.log(`cluster beside dev: ${label} (CLUSTER_DATA_DIR ${dataDir}, balancer on ${ports.balancer})…`);
    run = spawnLauncher(env, 'scripts/cluster.ts', label);
    let startSeconds: number;
    try {
      startSeconds = (await waitForLine(run, CLUSTER_UP_LINE, performance.now(), 600_000, ctx.signal)).seconds;
    } catch (err) {
      ctx.signal.throwIfAborted();
      return skip(message(err));
    }
    ctx.log(`  up after ${startSeconds.toFixed(1)} s; ${ctx.total} purchases through the balancer…`);
    try {
      const purchases = await runPurchases({
        baseUrl: `http://127.0.0.1:${ports.balancer}`,
        adminUsername: ADMIN_USERNAME,
        adminPassword,
        upstreamControlUrl: `http://127.0.0.1:${upstreamPort}`,
        total: ctx.total,
        concurrency: ctx.concurrency,
        databaseUrl: embeddedPostgresUrl(ports.pg, CLUSTER_DATABASES.platform),
        signal: ctx.signal,
        log: (m) => ctx.log(`  ${m}`),
      });
      return { side: { label, startSeconds, purchases, error: null }, skipped: null };
    } catch (err) {
      ctx.signal.throwIfAborted();
      ctx.log(`  ${label} failed: ${message(err)}`);
      return { side: { label, startSeconds, purchases: null, error: message(err) }, skipped: null };
    }
  } finally {
    ctx.log(`  stopping ${label} (SIGINT)…`);
    if (run) await stopLauncher(run);
    removeDataDir(dataDir);
  }
}

/**
 * Issue #30: purchases per second through `npm run cluster`'s balancer beside `npm run dev` on the
 * same machine in the same run, one after the other (never both at once), the same purchases and
 * concurrency; the provisioning rate of each from its database. Printed, no target.
 */
export async function runClusterVsDevBench(ctx: Ctx): Promise<ClusterVsDevResult> {
  const adminPassword = randomBytes(18).toString('base64url');
  const dev = await devSide(ctx, adminPassword);
  ctx.signal.throwIfAborted();
  const { side: cluster, skipped } = await clusterSide(ctx, adminPassword);
  const ratioOf = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? a / b : null);
  return {
    total: ctx.total,
    concurrency: ctx.concurrency,
    dev,
    cluster,
    clusterSkipped: skipped,
    ratio: ratioOf(cluster.purchases?.perSecond, dev.purchases?.perSecond),
    provisionedRatio: ratioOf(cluster.purchases?.provisionedPerSecond, dev.purchases?.provisionedPerSecond),
    failed: failuresOf(dev) + failuresOf(cluster),
  };
}

export function formatClusterVsDevTable(r: ClusterVsDevResult): string {
  const header = ['launcher', 'up s', 'purchases/s', 'seconds', 'failed', 'active', 'provisioned/s'];
  const row = (side: PurchaseSide, name: string): string[] => {
    const up = side.startSeconds === null ? '-' : side.startSeconds.toFixed(1);
    const p = side.purchases;
    if (!p) return [name, up, side.error === null ? 'skipped' : 'FAILED', '', '', '', ''];
    return [
      name,
      up,
      p.perSecond.toFixed(1),
      p.seconds.toFixed(1),
      String(p.failed),
      p.active === undefined ? 'n/a' : `${p.active}/${p.total - p.failed}`,
      p.provisionedPerSecond === undefined ? 'n/a' : p.provisionedPerSecond.toFixed(1),
    ];
  };
  const rows = [row(r.dev, 'npm run dev (1 API, 1 worker, Temporal dev server)'), row(r.cluster, 'npm run cluster (balancer, APIs, workers, Temporal server)')];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((cells) => cells[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const percent = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
  const out = [
    `集群与开发 / npm run cluster beside npm run dev: ${r.total} purchases (invoice + balance payment) each, ${r.concurrency} at once, one launcher after the other`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    `cluster/dev: purchases ${percent(r.ratio)}, provisioned ${percent(r.provisionedRatio)} (no target; on two cores the cluster runs five more processes: docs/production.md "Sizing")`,
  ];
  if (r.clusterSkipped) out.push(`npm run cluster skipped: ${r.clusterSkipped.split('\n')[0]}`);
  for (const side of [r.dev, r.cluster]) {
    if (side.error) out.push(`${side.label} FAILED: ${side.error.split('\n')[0]}`);
    for (const e of side.purchases?.errors ?? []) out.push(`${side.label} failed purchase: ${e}`);
  }
  return out.join('\n');
}
