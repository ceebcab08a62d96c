import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { onPath } from './go-build.js';
import { ensureDatabase, type RunningPostgres, startEmbeddedPostgres, withDatabase, withPgClient } from './postgres.js';
import { baseBackupFor, type BaseBackup, moveDataDirAside, takeBaseBackup } from './backup.js';
import { devSecretKey } from './secret-key.js';
import { ensureTemporalServer, installTemporalSchemas, startTemporalServer, TEMPORAL_SERVER_VERSION, temporalServerEnv } from './temporal-cluster.js';
import { API_NODE_FLAGS, WORKER_NODE_FLAGS } from './node-flags.js';
import { ensureTemporalUi, startTemporalUi, TEMPORAL_UI_VERSION } from './temporal-ui.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What `npm run build` compiles (tsconfig.build.json): dist/ is stale when one of these is newer. */
const BUILD_SOURCES = ['api', 'domain', 'workflows', 'activities', 'plugins', 'db', 'lib', 'sandbox', 'scripts/prepare-temporal.ts', 'scripts/lib/temporal-server.ts'];
const HAPROXY_CONFIG = join(REPO_ROOT, 'ops', 'haproxy', 'haproxy.cfg');

export class ClusterUnavailableError extends Error {}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Sleeps without blocking other processes' progress (a synchronous wait for a lock). */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Runs `npm run build` in `root` (this checkout by default; an upgrade test builds the release
 * before it too) when its dist/ is missing or older than the sources. One build at a time per
 * checkout: two test files that start a cluster at once would otherwise write one dist/ together
 * (a lock folder, taken over when older than ten minutes: a build that died).
 */
export function ensureProductionBuild(log: (m: string) => void, root: string = REPO_ROOT): void {
  const stamp = join(root, 'dist', '.build-stamp');
  const fresh = () => (existsSync(stamp) ? statSync(stamp).mtimeMs : 0) >= Math.max(...BUILD_SOURCES.map((p) => newestMtime(join(root, p))));
  if (fresh()) return;
  const lock = join(root, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      else sleepSync(500);
    }
  }
  try {
    if (fresh()) return;
    log(`构建生产版本 / building ${join(root, 'dist')} (npm run build)…`);
    const res = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (res.status !== 0) throw new Error(`npm run build failed in ${root}`);
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** HAProxy from the OS packages: installed with apt-get when running as root and missing. */
export function ensureHaproxy(log: (m: string) => void): string {
  const found = onPath('haproxy') ?? (existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : null);
  if (found) return found;
  if (process.getuid?.() === 0 && onPath('apt-get')) {
    log('安装 HAProxy / installing haproxy (apt-get)…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'haproxy'], { env, stdio: 'ignore' }).status === 0;
    if (install() || (spawnSync('apt-get', ['update'], { env, stdio: 'ignore' }).status === 0 && install())) {
      if (existsSync('/usr/sbin/haproxy')) return '/usr/sbin/haproxy';
    }
  }
  throw new ClusterUnavailableError('需要 HAProxy：请安装 haproxy（Debian/Ubuntu: sudo apt-get install haproxy） / HAProxy is missing: install the haproxy package.');
}

/** A child process the cluster can stop (SIGTERM), kill (SIGKILL) and start again on the same port. */
export type ClusterProcess = {
  name: string;
  /** The API's base URL (APIs only). */
  url: string | null;
  running(): boolean;
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  kill(): Promise<void>;
  /** The last lines it printed (for a failure message). */
  output(): string;
};

function managedProcess(options: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is ready (given its output so far). */
  ready: (output: () => string, child: ChildProcess) => Promise<void>;
  url: string | null;
  echo: boolean;
  /** The checkout whose dist/ runs (this one by default). */
  root?: string;
}): ClusterProcess {
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> = Promise.resolve(null);
  let tail = '';
  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  const signal = async (name: NodeJS.Signals, graceMs: number) => {
    if (!child || !alive()) return child?.exitCode ?? null;
    const proc = child;
    proc.kill(name);
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return {
    name: options.name,
    url: options.url,
    running: alive,
    async start() {
      if (alive()) return;
      tail = '';
      const proc = spawn(process.execPath, options.args, { cwd: options.root ?? REPO_ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
      const collect = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-20_000);
        if (options.echo) for (const line of chunk.toString().split('\n')) if (line.trim()) stream.write(`[${options.name}] ${line}\n`);
      };
      proc.stdout?.on('data', collect(process.stdout));
      proc.stderr?.on('data', collect(process.stderr));
      await Promise.race([
        options.ready(() => tail, proc),
        exited.then((code) => {
          throw new Error(`${options.name} exited during start (${code}): ${tail.slice(-2000)}`);
        }),
      ]);
    },
    stop: (graceMs = 30_000) => signal('SIGTERM', graceMs),
    async kill() {
      await signal('SIGKILL', 0);
    },
    output: () => tail,
  };
}

async function until(probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

function runOnce(name: string, entry: string, env: NodeJS.ProcessEnv, root: string = REPO_ROOT): void {
  const res = spawnSync(process.execPath, [join(root, entry)], { cwd: root, env, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${name} failed (${res.status}): ${(res.stderr + res.stdout).slice(-2000)}`);
}

/** The environment of a cluster's processes: the cluster's, over PATH and HOME. */
const processEnv = (env: Record<string, string>, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...env, ...extra });

/**
 * The one-shot steps of a release before its processes start: its migrations, then the Temporal
 * prepare step, from `root`'s dist/ (docs/production.md "Upgrade": the first step of an upgrade).
 */
export function migrateCluster(env: Record<string, string>, root: string = REPO_ROOT): void {
  runOnce('migrate', join('dist', 'db', 'migrate-cli.js'), processEnv(env, { LOG_LEVEL: 'warn' }), root);
  runOnce('temporal-prepare', join('dist', 'scripts', 'prepare-temporal.js'), processEnv(env, { LOG_LEVEL: 'warn' }), root);
}

/**
 * One API (`port`) or worker of a cluster, from `root`'s dist/: the cluster's own, and the
 * processes of the next release an upgrade starts in their place, one at a time.
 */
export function clusterProcess(options: { kind: 'api'; index: number; port: number; env: Record<string, string>; echo?: boolean; root?: string } | { kind: 'worker'; index: number; env: Record<string, string>; echo?: boolean; root?: string }): ClusterProcess {
  const echo = options.echo ?? false;
  const logLevel = { LOG_LEVEL: options.env.LOG_LEVEL ?? 'info' };
  if (options.kind === 'worker') {
    return managedProcess({
      name: `worker-${options.index}`,
      args: [...WORKER_NODE_FLAGS, '--import', './dist/lib/tracing-preload.js', 'dist/activities/worker.js'],
      env: processEnv(options.env, logLevel),
      url: null,
      echo,
      ...(options.root ? { root: options.root } : {}),
      ready: (output) => until(() => output().includes('"worker started"'), 'worker start'),
    });
  }
  const url = `http://127.0.0.1:${options.port}`;
  return managedProcess({
    name: `api-${options.index}`,
    args: [...API_NODE_FLAGS, '--import', './dist/lib/tracing-preload.js', 'dist/api/main.js'],
    env: processEnv(options.env, { PORT: String(options.port), ...logLevel }),
    url,
    echo,
    ...(options.root ? { root: options.root } : {}),
    ready: () => until(() => healthy(url), `${url}/api/health`),
  });
}

/** HAProxy in the foreground (-db) with the shared configuration and this cluster's backend file. */
async function startHaproxy(binary: string, backendFile: string, port: number, echo: boolean): Promise<{ stop(): Promise<void> }> {
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(binary, ['-db', '-f', HAPROXY_CONFIG, '-f', backendFile], {
    env: { PATH: process.env.PATH, LB_BIND: `127.0.0.1:${port}` },
    stdio: ['ignore', echo ? 'inherit' : 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
    if (echo) process.stderr.write(`[haproxy] ${c.toString()}`);
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  try {
    await Promise.race([
      until(() => healthy(url), 'the balancer'),
      exited.then(() => {
        throw new Error(`haproxy exited (${proc.exitCode}): ${stderr}`);
      }),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}

export type ClusterOptions = {
  /** Persistent data: PostgreSQL, the secret key, the balancer's backend file. */
  dataDir: string;
  /** The balancer's port (the entry URL). */
  port: number;
  /** The API processes listen on apiPorts[i]. */
  apiPorts: number[];
  workers: number;
  pgPort: number;
  /** The Temporal frontend's port; its other services take the next eight. */
  temporalPort: number;
  /** The Temporal UI's port (its URL is the APIs' TEMPORAL_UI_URL). */
  temporalUiPort: number;
  /** An existing PostgreSQL server instead of the embedded one (the platform's database is its path); its backups are its own. */
  databaseUrl?: string;
  /** Where the embedded server archives its WAL and the base backups go (default: under dataDir; clusterPaths). */
  paths?: ClusterPaths;
  /** Environment for the APIs and workers, over the cluster's own. */
  env?: Record<string, string>;
  /** Runs after migrations and the Temporal prepare step, before the APIs and workers start. */
  seed?: (appEnv: Record<string, string>) => Promise<void>;
  /** Prefix and print the processes' output (npm run cluster) or keep it (tests). */
  echo?: boolean;
  log?: (m: string) => void;
};

export type Cluster = {
  url: string;
  apis: ClusterProcess[];
  workers: ClusterProcess[];
  temporalAddress: string;
  temporalVersion: string;
  /** The Temporal UI (ops/temporal-ui, ui-server TEMPORAL_UI_VERSION) on the cluster's frontend. */
  temporalUiUrl: string;
  /** The PostgreSQL server (maintenance database URL) and the platform database. */
  adminDatabaseUrl: string;
  databaseUrl: string;
  /** The environment the APIs and workers run with. */
  env: Record<string, string>;
  stop(): Promise<void>;
};

export const CLUSTER_DATABASES = { platform: 'platform', persistence: 'temporal', visibility: 'temporal_visibility' } as const;

/** The embedded server's data, its WAL archive and its base backups (docs/production.md "Back up"). */
export type ClusterPaths = { pgData: string; walArchive: string; backups: string };

/** `CLUSTER_WAL_ARCHIVE_DIR` and `CLUSTER_BACKUP_DIR` (in production: another disk), else folders of dataDir. */
export function clusterPaths(dataDir: string, env: NodeJS.ProcessEnv = process.env): ClusterPaths {
  return {
    pgData: join(dataDir, 'postgres'),
    walArchive: resolve(env.CLUSTER_WAL_ARCHIVE_DIR ?? join(dataDir, 'wal-archive')),
    backups: resolve(env.CLUSTER_BACKUP_DIR ?? join(dataDir, 'backups')),
  };
}

/**
 * `npm run cluster -- backup`: a base backup of the running embedded server (all three
 * databases), recorded in the platform's `database_backups` (the dashboard's and the metrics' age).
 */
export async function backupCluster(options: { adminDatabaseUrl: string; paths: ClusterPaths; platformDb?: string }): Promise<BaseBackup> {
  mkdirSync(options.paths.backups, { recursive: true });
  const backup = await takeBaseBackup({ adminUrl: options.adminDatabaseUrl, dataDir: options.paths.pgData, backupsDir: options.paths.backups });
  await withPgClient(withDatabase(options.adminDatabaseUrl, options.platformDb ?? CLUSTER_DATABASES.platform), (c) =>
    c.query(
      `INSERT INTO database_backups (label, started_at, finished_at, start_lsn, stop_lsn, size_bytes, location)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (label) DO NOTHING`,
      [backup.label, backup.startedAt, backup.finishedAt, backup.startLsn, backup.stopLsn, backup.bytes, backup.dir],
    ),
  );
  return backup;
}

function serverRunning(pgData: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(realpathSync(pgData), 'postmaster.pid'), 'utf8'), 10);
  } catch {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type ClusterRestore = { backup: BaseBackup; target: Date; movedAside: string | null };

/**
 * `npm run cluster -- restore --to <time>` (the cluster stopped): the newest base backup finished
 * before the target copied into a fresh data folder, the archived WAL replayed up to the target,
 * then promoted (a new timeline, archived as well). The data folder it replaces is moved aside,
 * never deleted. The next `npm run cluster` starts on the restored server (docs/production.md
 * "Restore to a point in time" says what the platform then reconciles).
 */
export async function restoreCluster(options: { paths: ClusterPaths; pgPort: number; target: Date; log?: (m: string) => void }): Promise<ClusterRestore> {
  const log = options.log ?? (() => {});
  if (Number.isNaN(options.target.getTime())) throw new Error('恢复时间无效 / the restore time is not a valid time');
  if (options.target.getTime() > Date.now()) throw new Error('恢复时间在未来 / the restore time is in the future');
  if (serverRunning(options.paths.pgData)) throw new Error('PostgreSQL 仍在运行：请先停止集群 / PostgreSQL is still running: stop the cluster first');
  const backup = baseBackupFor(options.paths.backups, options.target);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const movedAside = moveDataDirAside(options.paths.pgData, stamp);
  log(`从基础备份 ${backup.dir}（完成于 ${backup.finishedAt.toISOString()}）恢复到 ${options.target.toISOString()} / restoring; the old data folder moved to ${movedAside ?? '(none)'}`);
  try {
    const pg = await startEmbeddedPostgres({
      dataDir: options.paths.pgData,
      port: options.pgPort,
      persistent: true,
      walArchiveDir: options.paths.walArchive,
      recovery: { baseBackupDir: backup.dir, targetTime: options.target },
      log,
    });
    await pg.stop();
  } catch (err) {
    // Put the old folder back: a failed restore leaves the cluster as it was.
    if (movedAside) {
      const oldReal = movedAside.slice(0, movedAside.lastIndexOf('.before-restore-'));
      const link = lstatSync(options.paths.pgData, { throwIfNoEntry: false });
      if (link) rmSync(realpathSync(options.paths.pgData), { recursive: true, force: true });
      if (link?.isSymbolicLink()) unlinkSync(options.paths.pgData);
      renameSync(movedAside, oldReal);
      if (oldReal !== options.paths.pgData) symlinkSync(oldReal, options.paths.pgData);
    }
    throw err;
  }
  return { backup, target: options.target, movedAside };
}

/**
 * The production shape on one machine: PostgreSQL with the platform's and Temporal's two
 * databases, the real Temporal server (schemas by temporal-sql-tool), migrations and the
 * Temporal prepare step from dist/, then the APIs and workers from dist/ behind HAProxy.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const echo = options.echo ?? false;
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch((err: unknown) => log(`stop failed: ${String(err)}`));
  };
  try {
    const haproxy = ensureHaproxy(log);
    const build = ensureTemporalServer(log);
    const uiBinary = ensureTemporalUi(log);
    ensureProductionBuild(log);
    mkdirSync(options.dataDir, { recursive: true });

    let adminDatabaseUrl = options.databaseUrl ? withDatabase(options.databaseUrl, 'postgres') : '';
    let platformDb: string = CLUSTER_DATABASES.platform;
    if (options.databaseUrl) {
      platformDb = new URL(options.databaseUrl).pathname.slice(1) || CLUSTER_DATABASES.platform;
    } else {
      log(`启动内置 PostgreSQL / starting embedded PostgreSQL on ${options.pgPort} (data: ${options.dataDir}/postgres)`);
      const paths = options.paths ?? clusterPaths(options.dataDir);
      const pg: RunningPostgres = await startEmbeddedPostgres({ dataDir: paths.pgData, port: options.pgPort, persistent: true, walArchiveDir: paths.walArchive, log });
      stops.push(() => pg.stop());
      adminDatabaseUrl = pg.url('postgres');
    }
    for (const db of [platformDb, CLUSTER_DATABASES.persistence, CLUSTER_DATABASES.visibility]) await ensureDatabase(adminDatabaseUrl, db);
    const databaseUrl = withDatabase(adminDatabaseUrl, platformDb);
    const pgUrl = new URL(adminDatabaseUrl);
    const db = { host: pgUrl.hostname, port: Number(pgUrl.port || 5432), user: decodeURIComponent(pgUrl.username), password: decodeURIComponent(pgUrl.password) };

    log('Temporal 数据库结构 / Temporal schemas (temporal-sql-tool setup-schema + update-schema)');
    installTemporalSchemas(build, db, CLUSTER_DATABASES);
    log(`启动 Temporal 服务器 / starting Temporal server ${TEMPORAL_SERVER_VERSION} on ${options.temporalPort}`);
    const temporal = await startTemporalServer({ build, env: temporalServerEnv(db, options.temporalPort, CLUSTER_DATABASES), log });
    stops.push(() => temporal.stop());
    const connection = await Connection.connect({ address: temporal.address });
    const temporalVersion = (await connection.workflowService.getSystemInfo({})).serverVersion ?? TEMPORAL_SERVER_VERSION;
    await connection.close();
    const namespace = options.env?.TEMPORAL_NAMESPACE ?? 'default';
    log(`启动 Temporal UI / starting the Temporal UI ${TEMPORAL_UI_VERSION} on ${options.temporalUiPort}`);
    const ui = await startTemporalUi({ binary: uiBinary, address: temporal.address, port: options.temporalUiPort, namespace });
    stops.push(() => ui.stop());
    const temporalUiUrl = ui.url;

    const env: Record<string, string> = {
      // Production, as a staging deployment: the local sandboxes are plain-HTTP private
      // addresses, which only ALLOW_PRIVATE_UPSTREAMS lets through (docs/production.md
      // "Development and production"); every other production rule holds.
      NODE_ENV: 'production',
      ALLOW_PRIVATE_UPSTREAMS: 'true',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      // The admin API's temporal_ui_url links open this cluster's UI.
      TEMPORAL_UI_URL: temporalUiUrl,
      APP_SECRET_KEY: devSecretKey(options.dataDir),
      DATA_DIR: options.dataDir,
      PUBLIC_BASE_URL: `http://localhost:${options.port}`,
      // The balancer is the only proxy whose X-Forwarded-For the APIs believe.
      TRUST_PROXY: '127.0.0.1',
      HOST: '127.0.0.1',
      ...options.env,
    };
    log('数据库迁移与 Temporal 准备 / migrations and the Temporal prepare step (one-shot)');
    migrateCluster(env);
    if (options.seed) await options.seed(env);

    const workers = Array.from({ length: options.workers }, (_, i) => clusterProcess({ kind: 'worker', index: i + 1, env, echo }));
    const apis = options.apiPorts.map((port, i) => clusterProcess({ kind: 'api', index: i + 1, port, env, echo }));
    // Each kind stops in parallel (a worker may take its grace period to hand back its tasks).
    stops.push(() => Promise.all(workers.map((p) => p.stop())));
    stops.push(() => Promise.all(apis.map((p) => p.stop())));
    await Promise.all([...workers, ...apis].map((p) => p.start()));

    const backendFile = join(options.dataDir, 'haproxy-backend.cfg');
    writeFileSync(
      backendFile,
      [
        '# Written by scripts/lib/cluster.ts on each start: the API processes behind ops/haproxy/haproxy.cfg.',
        'backend api',
        '  balance roundrobin',
        ...options.apiPorts.map((port, i) => `  server api-${i + 1} 127.0.0.1:${port} check`),
        '',
      ].join('\n'),
    );
    const url = `http://127.0.0.1:${options.port}`;
    const balancer = await startHaproxy(haproxy, backendFile, options.port, echo);
    stops.push(() => balancer.stop());
    // stop() runs in reverse: the balancer, the APIs, the workers, the UI, Temporal, PostgreSQL.
    return {
      url,
      apis,
      workers,
      temporalAddress: temporal.address,
      temporalVersion,
      temporalUiUrl,
      adminDatabaseUrl,
      databaseUrl,
      env,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
