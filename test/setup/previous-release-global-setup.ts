import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import type * as workerModule from '../../activities/worker.js';
import { startEphemeralInfra } from '../../scripts/lib/infra.js';
import { createTemplateDatabase } from './template-database.js';

/**
 * The global setup of the previous release's own tests when they run on this tree's schema
 * (`test/setup/previous-release.config.ts`, run by `test/db/previous-release-schema.test.ts`):
 * the `inject` keys its `test/setup/global-setup.ts` provides, but the template database is
 * migrated by this tree's migrations. PostgreSQL and Temporal are the calling run's
 * (DATABASE_URL and TEMPORAL_ADDRESS, which `startEphemeralInfra` uses when set); the workflows
 * are the previous release's, bundled by its own code, for the files that start a worker.
 */
export async function setup(project: TestProject) {
  const log = (m: string) => console.log(`[previous-release setup] ${m}`);
  const previousRoot = project.config.root;
  const infra = await startEphemeralInfra(log);
  const dir = mkdtempSync(join(tmpdir(), 'platform-previous-test-'));
  let template: Awaited<ReturnType<typeof createTemplateDatabase>> | null = null;
  try {
    template = await createTemplateDatabase(infra.adminDatabaseUrl);
    const { bundleWorkflows } = (await import(pathToFileURL(join(previousRoot, 'activities', 'worker.ts')).href)) as typeof workerModule;
    const bundle = await bundleWorkflows(join(previousRoot, 'workflows', 'index.ts'));
    const workflowBundlePath = join(dir, 'workflow-bundle.js');
    writeFileSync(workflowBundlePath, bundle.code);

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
