import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { startEmbeddedPostgres, withDatabase } from './postgres.js';
import { ensureTemporalCli } from './temporal-cli.js';
import { startTemporalDevServer } from './temporal-server.js';

export type Infra = {
  /** URL of a maintenance database on the server, used to create and drop per-run databases. */
  adminDatabaseUrl: string;
  temporalAddress: string;
  stop(): Promise<void>;
};

/**
 * Throwaway PostgreSQL and Temporal for one test or benchmark run: DATABASE_URL and
 * TEMPORAL_ADDRESS are used when set, otherwise an embedded PostgreSQL in a temporary
 * directory and an in-memory Temporal dev server start on free ports.
 */
export async function startEphemeralInfra(log: (m: string) => void = () => {}): Promise<Infra> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    let adminDatabaseUrl = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : '';
    if (!adminDatabaseUrl) {
      const dir = mkdtempSync(join(tmpdir(), 'platform-pg-'));
      // As root, PostgreSQL runs as its own system user, which must be able to enter the directory.
      chmodSync(dir, 0o755);
      const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), port: await freePort(), persistent: false, log });
      stops.push(async () => {
        try {
          await pg.stop();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
      adminDatabaseUrl = pg.url('postgres');
    }
    let temporalAddress = process.env.TEMPORAL_ADDRESS ?? '';
    if (!temporalAddress) {
      const temporal = await startTemporalDevServer({
        cliPath: await ensureTemporalCli(log),
        port: await freePort(),
        uiPort: null,
        dbFile: null,
        namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
    }
    return { adminDatabaseUrl, temporalAddress, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
