import { randomBytes } from 'node:crypto';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';

export type BenchDatabase = { name: string; url: string; drop(): Promise<void> };

/** A fresh, uniquely named database on the infra's server; `drop` removes it again. */
export async function createBenchDatabase(adminDatabaseUrl: string): Promise<BenchDatabase> {
  const name = `platform_bench_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(adminDatabaseUrl, name);
  return {
    name,
    url: withDatabase(adminDatabaseUrl, name),
    drop: () =>
      withPgClient(adminDatabaseUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      }),
  };
}
