import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { stopChild } from '../../scripts/lib/children.js';
import { startMutableNodeChild } from '../lib/node-child.js';
import { percentile } from '../lib/percentile.js';
import { type PeakRss, watchPeakRss } from '../lib/rss.js';
import { workerStarted } from '../lib/worker-started.js';
import { type BareStep, upstreamCallsOf } from './bare-steps.js';
import type { bareProvisioningWorkflow } from './bare-workflow.js';

export type BareTemporalResult = {
  wallSeconds: number;
  perSecond: number;
  medianMs: number;
  p95Ms: number;
  completed: number;
  /** Local activities and upstream calls (waited, not made) per provisioning. */
  steps: { localActivities: number; upstreamCalls: number };
  /** One alone after the others: start → result, the time waited in its steps, and the difference. */
  single: { endToEndMs: number; waitedMs: number; overheadMs: number };
  rss: PeakRss;
};

/** Settles with `promise`, or rejects as soon as `signal` aborts (a workflow result never comes on its own). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.throwIfAborted();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The bare Temporal baseline: `count` bare provisioning workflows (bare-workflow.ts: `steps` as
 * local activities that only wait) started at once with a client on the same Temporal server,
 * run by a worker process of their own (bare-worker.ts) with the platform worker's tuning; then
 * one alone. End to end = start → result, per workflow, from this process.
 */
export async function runBareTemporal(ctx: {
  temporalAddress: string;
  namespace: string;
  /** The environment of our worker (WORKER_CONCURRENCY and the rest), so that both resolve the same tuning. */
  workerEnv: NodeJS.ProcessEnv;
  steps: readonly BareStep[];
  count: number;
  latencyMs: number;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<BareTemporalResult> {
  const taskQueue = `bench-bare-provisioning-${randomBytes(4).toString('hex')}`;
  const connection = await Connection.connect({ address: ctx.temporalAddress });
  const worker = startMutableNodeChild(
    'bare-worker',
    fileURLToPath(new URL('./bare-worker.ts', import.meta.url)),
    { ...ctx.workerEnv, BARE_TASK_QUEUE: taskQueue },
    // Its only line is the start line; errors are shown unless the run was interrupted.
    () => ctx.signal.aborted,
  );
  try {
    const client = new Client({ connection, namespace: ctx.namespace });
    // Bundling its workflow takes a few seconds, as for ours.
    await workerStarted(worker, ctx.signal, 120_000);
    const rss = watchPeakRss({ 'bare Temporal worker': worker.process.pid });
    const input = { steps: [...ctx.steps], latencyMs: ctx.latencyMs };
    const prefix = `bench-bare-provision:${randomBytes(4).toString('hex')}`;
    const runOne = async (workflowId: string) => {
      const t0 = performance.now();
      const handle = await client.workflow.start<typeof bareProvisioningWorkflow>('bareProvisioningWorkflow', {
        taskQueue,
        workflowId,
        args: [input],
        workflowExecutionTimeout: '10m',
      });
      await handle.result();
      return performance.now() - t0;
    };

    ctx.log(`provisioning: bare Temporal baseline, ${ctx.count} workflows of ${ctx.steps.length} waiting local activities at once…`);
    const started = performance.now();
    const times = await untilAborted(Promise.all(Array.from({ length: ctx.count }, (_, i) => runOne(`${prefix}:${i}`))), ctx.signal);
    const wallSeconds = (performance.now() - started) / 1000;
    ctx.log('provisioning: bare Temporal baseline, one alone…');
    const single = await untilAborted(runOne(`${prefix}:single`), ctx.signal);
    const upstreamCalls = upstreamCallsOf(ctx.steps);
    const waitedMs = upstreamCalls * ctx.latencyMs;
    return {
      wallSeconds,
      perSecond: times.length / wallSeconds,
      medianMs: percentile(times, 50),
      p95Ms: percentile(times, 95),
      completed: times.length,
      steps: { localActivities: ctx.steps.length, upstreamCalls },
      single: { endToEndMs: single, waitedMs, overheadMs: single - waitedMs },
      rss: rss.stop(),
    };
  } finally {
    await stopChild(worker);
    await connection.close();
  }
}
