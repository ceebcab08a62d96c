import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../activities/worker.js';
import { startEphemeralInfra } from '../../scripts/lib/infra.js';
import { createTemplateDatabase } from './template-database.js';

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
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  let template: Awaited<ReturnType<typeof createTemplateDatabase>> | null = null;
  try {
    template = await createTemplateDatabase(infra.adminDatabaseUrl);
    const bundle = await bundleWorkflows(fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)));
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
