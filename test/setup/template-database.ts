import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '../../db/migrate.js';
import { createDatabase } from '../../db/sequelize.js';
import { startEphemeralInfra } from '../../scripts/lib/infra.js';
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

/**
 * The set-up a run's test files `inject`: PostgreSQL and Temporal (`startEphemeralInfra`: the
 * calling run's when DATABASE_URL and TEMPORAL_ADDRESS are set), a template database migrated by
 * this tree, and the workflows bundled once by `bundle` (ours, or the previous release's for its
 * own tests). Answers the teardown.
 */
export async function provideRunInfra(
  project: TestProject,
  options: { log: (m: string) => void; tmpPrefix: string; bundle: () => Promise<{ code: string }> },
): Promise<() => Promise<void>> {
  const infra = await startEphemeralInfra(options.log);
  const dir = mkdtempSync(join(tmpdir(), options.tmpPrefix));
  let template: Awaited<ReturnType<typeof createTemplateDatabase>> | null = null;
  try {
    template = await createTemplateDatabase(infra.adminDatabaseUrl);
    const workflowBundlePath = join(dir, 'workflow-bundle.js');
    writeFileSync(workflowBundlePath, (await options.bundle()).code);

    project.provide('adminDatabaseUrl', infra.adminDatabaseUrl);
    project.provide('templateDatabase', template.name);
    project.provide('temporalAddress', infra.temporalAddress);
    project.provide('workflowBundlePath', workflowBundlePath);
  } catch (err) {
    await template?.drop();
    await infra.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const { drop } = template;
  return async () => {
    await drop();
    await infra.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
