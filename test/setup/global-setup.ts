import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../activities/worker.js';
import { provideRunInfra } from './template-database.js';

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
  return provideRunInfra(project, {
    log: (m) => console.log(`[setup] ${m}`),
    tmpPrefix: 'platform-test-',
    bundle: () => bundleWorkflows(fileURLToPath(new URL('../../workflows/index.ts', import.meta.url))),
  });
}
