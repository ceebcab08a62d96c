// The restore drill (docs/production.md "Backups and the restore drill"):
//   DATABASE_URL=postgres://…/platform node --import tsx scripts/restore-drill.ts
// dumps the platform's database and Temporal's two with pg_dump, restores them into fresh
// databases (<name>_drill), checks the ledger integrity on the restored platform database and
// lists the workflows from a Temporal server started on the restored Temporal databases.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { createDatabase } from '../db/sequelize.js';
import { checkLedgerIntegrity } from '../domain/billing/integrity/check-ledger-integrity.js';
import { loadConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger } from '../lib/logger.js';
import { onPath } from './lib/go-build.js';
import { freePort } from './lib/ports.js';
import { quoteIdent, withDatabase, withPgClient } from './lib/postgres.js';
import { ensureTemporalServer, startTemporalServer, temporalServerEnv } from './lib/temporal-cluster.js';

export type DrillDatabases = { platform: string; persistence: string; visibility: string };
export type DrillResult = { restored: DrillDatabases; integrityViolations: number; workflowIds: string[] };

/** pg_dump and pg_restore of a major version at least the server's, or the reason there are none. */
export async function findPgTools(serverUrl: string): Promise<{ pgDump: string; pgRestore: string } | string> {
  const dir = process.env.PG_BIN_DIR;
  const pgDump = dir ? join(dir, 'pg_dump') : onPath('pg_dump');
  const pgRestore = dir ? join(dir, 'pg_restore') : onPath('pg_restore');
  if (!pgDump || !pgRestore) return 'pg_dump/pg_restore not installed (PostgreSQL client tools, or PG_BIN_DIR)';
  const client = Number(/(\d+)/.exec(spawnSync(pgDump, ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 0);
  const server = await withPgClient(serverUrl, async (c) => Math.floor(Number((await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]?.v) / 10000));
  if (client < server) return `pg_dump ${client} cannot dump PostgreSQL ${server}: install client tools ${server} or newer (PG_BIN_DIR)`;
  return { pgDump, pgRestore };
}

/** Lists the ids of every workflow on a Temporal server started on the given databases (temporary ports). */
export async function listWorkflowIds(serverUrl: string, databases: { persistence: string; visibility: string }, namespace = 'default'): Promise<string[]> {
  const url = new URL(serverUrl);
  const db = { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  let port = 0;
  // Nine ports in a row below 32768 (see temporalServerEnv).
  do port = 20_000 + ((await freePort()) % 12_000);
  while (port + 8 >= 32_768);
  const server = await startTemporalServer({ build: ensureTemporalServer(), env: temporalServerEnv(db, port, databases), log: () => {} });
  try {
    const connection = await Connection.connect({ address: server.address });
    try {
      const ids: string[] = [];
      for await (const wf of new Client({ connection, namespace }).workflow.list()) ids.push(wf.workflowId);
      return ids.sort();
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}

export async function restoreDrill(options: { serverUrl: string; databases: DrillDatabases; log?: (m: string) => void }): Promise<DrillResult> {
  const log = options.log ?? (() => {});
  const tools = await findPgTools(options.serverUrl);
  if (typeof tools === 'string') throw new Error(tools);
  const dir = mkdtempSync(join(tmpdir(), 'restore-drill-'));
  const restored = Object.fromEntries(Object.entries(options.databases).map(([k, name]) => [k, `${name}_drill`])) as DrillDatabases;
  try {
    for (const [key, name] of Object.entries(options.databases) as Array<[keyof DrillDatabases, string]>) {
      const file = join(dir, `${name}.dump`);
      log(`pg_dump ${name}`);
      const dump = spawnSync(tools.pgDump, ['-Fc', '-f', file, '-d', withDatabase(options.serverUrl, name)], { encoding: 'utf8' });
      if (dump.status !== 0) throw new Error(`pg_dump ${name}: ${dump.stderr}`);
      const target = restored[key];
      await withPgClient(options.serverUrl, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(target)} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${quoteIdent(target)}`);
      });
      log(`pg_restore → ${target}`);
      const restore = spawnSync(tools.pgRestore, ['--no-owner', '--exit-on-error', '-d', withDatabase(options.serverUrl, target), file], { encoding: 'utf8' });
      if (restore.status !== 0) throw new Error(`pg_restore ${target}: ${restore.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const config = loadConfig({ DATABASE_URL: withDatabase(options.serverUrl, restored.platform), APP_SECRET_KEY: randomBytes(32).toString('base64url'), TEMPORAL_ADDRESS: '127.0.0.1:1' });
  const db = createDatabase({ url: config.databaseUrl });
  let integrityViolations: number;
  try {
    integrityViolations = (await checkLedgerIntegrity({ config, db, logger: createLogger('silent', 'drill'), secretBox: createSecretBox(config.secretKey) })).length;
  } finally {
    await db.close();
  }
  log(`integrity: ${integrityViolations} violations`);
  const workflowIds = await listWorkflowIds(options.serverUrl, restored);
  log(`workflows listed from the restored Temporal databases: ${workflowIds.length}`);
  return { restored, integrityViolations, workflowIds };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL (the platform database on the server to drill) is required');
    process.exit(2);
  }
  const platform = new URL(url).pathname.slice(1) || 'platform';
  const result = await restoreDrill({
    serverUrl: withDatabase(url, 'postgres'),
    databases: { platform, persistence: process.env.TEMPORAL_DB ?? 'temporal', visibility: process.env.TEMPORAL_VISIBILITY_DB ?? 'temporal_visibility' },
    log: (m) => console.log(`[drill] ${m}`),
  });
  console.log(JSON.stringify({ ...result, workflowIds: result.workflowIds.length }));
  process.exit(result.integrityViolations === 0 ? 0 : 1);
}
