import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import type * as workerModule from '../../activities/worker.js';
import { provideRunInfra } from './template-database.js';

/**
 * The global setup of the previous release's own tests when they run on this tree's schema
 * (`test/setup/previous-release.config.ts`, run by `test/db/previous-release-schema.test.ts`):
 * the `inject` keys its `test/setup/global-setup.ts` provides, but the template database is
 * migrated by this tree's migrations. PostgreSQL and Temporal are the calling run's
 * (DATABASE_URL and TEMPORAL_ADDRESS, which `startEphemeralInfra` uses when set); the workflows
 * are the previous release's, bundled by its own code, for the files that start a worker.
 */
export async function setup(project: TestProject) {
  const previousRoot = project.config.root;
  return provideRunInfra(project, {
    log: (m) => console.log(`[previous-release setup] ${m}`),
    tmpPrefix: 'platform-previous-test-',
    bundle: async () => {
      const { bundleWorkflows } = (await import(pathToFileURL(join(previousRoot, 'activities', 'worker.ts')).href)) as typeof workerModule;
      return bundleWorkflows(join(previousRoot, 'workflows', 'index.ts'));
    },
  });
}
