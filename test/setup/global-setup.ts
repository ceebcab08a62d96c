import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../activities/worker.js';
import { runMigrations } from '../../db/migrate.js';
import { createDatabase } from '../../db/sequelize.js';
import { startEphemeralInfra } from '../../scripts/lib/infra.js';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

/**
 * One PostgreSQL and one Temporal dev server for the whole run, a migrated template database
 * that each test file clones, and the workflow bundle built once.
 */
export default async function setup(project: TestProject) {
  const infra = await startEphemeralInfra((m) => console.log(`[setup] ${m}`));
  const templateDatabase = `platform_tpl_${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  try {
    await ensureDatabase(infra.adminDatabaseUrl, templateDatabase);
    const db = createDatabase({ url: withDatabase(infra.adminDatabaseUrl, templateDatabase) });
    await runMigrations(db.sequelize);
    await db.close();
    const bundle = await bundleWorkflows(fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)));
    const workflowBundlePath = join(dir, 'workflow-bundle.js');
    writeFileSync(workflowBundlePath, bundle.code);

    project.provide('adminDatabaseUrl', infra.adminDatabaseUrl);
    project.provide('templateDatabase', templateDatabase);
    project.provide('temporalAddress', infra.temporalAddress);
    project.provide('workflowBundlePath', workflowBundlePath);
  } catch (err) {
    await infra.stop();
    throw err;
  }

  return async () => {
    await withPgClient(infra.adminDatabaseUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(templateDatabase)}`)).catch(() => {});
    await infra.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
