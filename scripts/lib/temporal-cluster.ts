import { type ChildProcess, spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startQuietChild, stopChild } from './children.js';
import { executable, goEnv, goInstall, userCacheDir } from './go-build.js';
import { connectWhenReady } from './temporal-server.js';

/** The Temporal server release docker-compose.yml pins (test/ops/compose.test.ts checks they agree). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The server configuration (the same file docker-compose.yml mounts). */
export const TEMPORAL_CONFIG_DIR = join(REPO_ROOT, 'ops', 'temporal');

export type TemporalServerBuild = { server: string; sqlTool: string; schemaDir: string };

export class TemporalBuildError extends Error {}

export function temporalServerCacheDir(): string {
  return userCacheDir(`temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/**
 * The real Temporal server and `temporal-sql-tool`, built once from the Go module proxy into the
 * per-user cache (beside the CLI), with the PostgreSQL v12 schema files of the same release.
 */
export function ensureTemporalServer(log: (m: string) => void = console.log): TemporalServerBuild {
  const dir = temporalServerCacheDir();
  const build = { server: join(dir, 'server'), sqlTool: join(dir, 'sql'), schemaDir: join(dir, 'schema', 'postgresql', 'v12') };
  if (!executable(build.server) || !executable(build.sqlTool)) {
    const built = goInstall({
      label: `the Temporal server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool`,
      packages: [`${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`],
      targetDir: dir,
      binaries: ['server', 'sql'],
      log,
    });
    if (!built) {
      throw new TemporalBuildError(
        `无法构建 Temporal 服务器 ${TEMPORAL_SERVER_VERSION}：请安装 Go (https://go.dev/dl/) 后重试 / ` +
          `Temporal server ${TEMPORAL_SERVER_VERSION} could not be built: install Go and retry.`,
      );
    }
  }
  if (!existsSync(build.schemaDir)) {
    // The schema files ship in the server module, which `go install` left in the module cache.
    const modCache = goEnv('GOMODCACHE');
    const source = modCache && join(modCache, `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
    if (!source || !existsSync(source)) throw new TemporalBuildError(`Temporal schema files not found in the Go module cache (${source ?? 'no Go'})`);
    cpSync(source, build.schemaDir, { recursive: true });
  }
  return build;
}

export type TemporalDatabase = { host: string; port: number; user: string; password: string };

/**
 * Installs or upgrades the persistence and visibility schemas with temporal-sql-tool only (the
 * databases must exist): `setup-schema -v 0.0` (version tables; never lowers a version), then
 * `update-schema` to the newest version shipped with the server.
 */
export function installTemporalSchemas(build: TemporalServerBuild, db: TemporalDatabase, databases = { persistence: 'temporal', visibility: 'temporal_visibility' }): void {
  const env = { ...process.env, SQL_PLUGIN: 'postgres12', SQL_HOST: db.host, SQL_PORT: String(db.port), SQL_USER: db.user, SQL_PASSWORD: db.password };
  for (const [database, folder] of [
    [databases.persistence, 'temporal'],
    [databases.visibility, 'visibility'],
  ] as const) {
    for (const args of [
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '-d', join(build.schemaDir, folder, 'versioned')],
    ]) {
      const res = spawnSync(build.sqlTool, ['--quiet', ...args], { env: { ...env, SQL_DATABASE: database }, encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed: ${(res.stderr || res.stdout).trim().slice(-1000)}`);
    }
  }
}

export type RunningTemporalServer = { address: string; process: ChildProcess; stop(): Promise<void> };

/** Environment of ops/temporal/production.yaml for a server on `port` (its other services on the next ports). */
export function temporalServerEnv(db: TemporalDatabase, port: number, databases = { persistence: 'temporal', visibility: 'temporal_visibility' }): Record<string, string> {
  return {
    POSTGRES_SEEDS: db.host,
    DB_PORT: String(db.port),
    POSTGRES_USER: db.user,
    POSTGRES_PWD: db.password,
    DBNAME: databases.persistence,
    VISIBILITY_DBNAME: databases.visibility,
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(port),
    HISTORY_GRPC_PORT: String(port + 1),
    MATCHING_GRPC_PORT: String(port + 2),
    WORKER_GRPC_PORT: String(port + 3),
    FRONTEND_HTTP_PORT: String(port + 4),
    FRONTEND_MEMBERSHIP_PORT: String(port + 5),
    HISTORY_MEMBERSHIP_PORT: String(port + 6),
    MATCHING_MEMBERSHIP_PORT: String(port + 7),
    WORKER_MEMBERSHIP_PORT: String(port + 8),
    DYNAMIC_CONFIG_FILE_PATH: join(TEMPORAL_CONFIG_DIR, 'dynamicconfig.yaml'),
  };
}

/** `temporal-server --config ops/temporal --env production start`, waiting until its frontend is serving. */
export async function startTemporalServer(options: {
  build: TemporalServerBuild;
  env: Record<string, string>;
  log: (m: string) => void;
}): Promise<RunningTemporalServer> {
  const child = startQuietChild('temporal-server', options.build.server, ['--root', REPO_ROOT, '--config', 'ops/temporal', '--env', 'production', '--allow-no-auth', 'start'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', ...options.env },
  });
  const address = `127.0.0.1:${options.env.FRONTEND_GRPC_PORT}`;
  const stop = () => stopChild(child, 20_000);
  try {
    const connection = await connectWhenReady(address, child.process, 180_000);
    await connection.close();
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${child.tail()}`);
  }
  return { address, process: child.process, stop };
}
