import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, type Database } from '../../db/sequelize.js';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';

export type MigrationDatabase = {
  /** Its address, for `withPgClient` (rows written beside the platform's code). */
  readonly url: string;
  /** The platform's database on it, made on first use and closed after the file's tests. */
  readonly db: Database;
};

/**
 * The frame of a migration test (test/db/*-migration.test.ts): an empty database of the file's
 * own, created before its tests and dropped after them, on which the test runs the migrations
 * up to the one it checks (`createMigrator(db.sequelize).up({ to })`).
 */
export function migrationDatabase(): MigrationDatabase {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `m_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(adminUrl, name);
  let db: Database | null = null;
  beforeAll(async () => {
    await ensureDatabase(adminUrl, name);
  });
  afterAll(async () => {
    await db?.close();
    await withPgClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`)).catch(() => {});
  });
  return {
    url,
    get db() {
      db ??= createDatabase({ url, poolMax: 2 });
      return db;
    },
  };
}
