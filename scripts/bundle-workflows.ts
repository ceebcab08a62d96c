// Build step: bundles the workflow code once, so the production worker loads
// dist/workflow-bundle.js instead of running webpack at every start.
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const outFile = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));

// TRACE_WORKFLOWS=1: include the Temporal OpenTelemetry workflow interceptors (docs/operations.md "Traces").
const traced = process.env.TRACE_WORKFLOWS === '1';
const { code } = await bundleWorkflowCode({
  workflowsPath,
  logger: new DefaultLogger('WARN'),
  ...(traced ? { workflowInterceptorModules: [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js')] } : {}),
});
await mkdir(dirname(outFile), { recursive: true });
await writeFile(outFile, code);
console.log(`workflow bundle written to ${outFile} (${(code.length / 1024).toFixed(0)} KiB)`);
