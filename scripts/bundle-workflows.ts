// Build step: bundles the workflow code once, so the production worker loads
// dist/workflow-bundle.js instead of running webpack at every start.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const outFile = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));

const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
await mkdir(dirname(outFile), { recursive: true });
await writeFile(outFile, code);
console.log(`workflow bundle written to ${outFile} (${(code.length / 1024).toFixed(0)} KiB)`);
