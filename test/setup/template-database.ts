import { randomBytes } from 'node:crypto';
import { runMigrations } from '../../db/migrate.js';
import { createDatabase } from '../../db/sequelize.js';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';

/**
 * A database migrated by this tree's migrations, which each test file clones
 * (`test/helpers/platform.ts`): the template of our own run and of the previous release's
 * database tests (`test/setup/previous-release-global-setup.ts`).
 */
export async function createTemplateDatabase(adminDatabaseUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `platform_tpl_${randomBytes(4).toString('hex')}`;
  const drop = async () => {
    await withPgClient(adminDatabaseUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`)).catch(() => {});
  };
  await ensureDatabase(adminDatabaseUrl, name);
  const db = createDatabase({ url: withDatabase(adminDatabaseUrl, name) });
  try {
    await runMigrations(db.sequelize);
  } catch (err) {
    await db.close();
    await drop();
    throw err;
  }
  await db.close();
  return { name, drop };
}
