// The bare Temporal worker of the provisioning bench, a process of its own like the platform's
// worker (activities/worker.ts), started by run-provisioning.ts. Same Temporal dev server, the same
// platform-queue tuning (activities/worker-tuning.ts, from the same WORKER_CONCURRENCY), its own
// task queue (BARE_TASK_QUEUE) and its own workflow bundle: bare-workflow.ts, whose local
// activities only wait. No database, no plugin, no domain code.
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { platformWorkerTuning } from '../../activities/worker-tuning.js';
import { loadConfig } from '../../lib/config.js';
import type { BareActivities } from './bare-steps.js';

const taskQueue = process.env.BARE_TASK_QUEUE;
if (!taskQueue) throw new Error('BARE_TASK_QUEUE is required');
const config = loadConfig();
Runtime.install({ logger: new DefaultLogger('WARN') });

const activities: BareActivities = {
  async wait(ms) {
    if (ms > 0) await sleep(ms);
  },
};
// Prebuilt by the bench (BARE_WORKFLOW_BUNDLE_PATH), as production workers load a prebuilt
// bundle: webpack inside the worker would count in its memory.
const prebuilt = process.env.BARE_WORKFLOW_BUNDLE_PATH;
const workflowBundle = prebuilt
  ? { codePath: prebuilt }
  : await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: config.temporal.address });
const concurrency = config.temporal.workerConcurrency;
const worker = await Worker.create({ connection, namespace: config.temporal.namespace, taskQueue, activities, workflowBundle, ...platformWorkerTuning(concurrency) });
process.once('SIGINT', () => worker.shutdown());
process.once('SIGTERM', () => worker.shutdown());
// The line run-provisioning.ts waits for (as for the platform's worker).
console.log(JSON.stringify({ msg: 'worker started', taskQueue, concurrency }));
await worker.run();
await connection.close();
