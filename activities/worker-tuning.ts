import type { WorkerOptions } from '@temporalio/worker';

/**
 * The platform queue's worker tuning: slots and workflow cache, from WORKER_CONCURRENCY. A
 * provisioning runs its steps as local activities inside its workflow task, so the queue needs as
 * many workflow-task slots as provisionings that may run at once. Pollers are left to the SDK's
 * defaults. Its own module (no imports of ours) so that the bench's bare Temporal worker
 * (bench/provisioning/bare-worker.ts) runs with exactly these options without loading the platform.
 */
export function platformWorkerTuning(
  concurrency: number,
): Pick<WorkerOptions, 'maxConcurrentWorkflowTaskExecutions' | 'maxConcurrentLocalActivityExecutions' | 'maxConcurrentActivityTaskExecutions' | 'maxCachedWorkflows'> {
  return {
    maxConcurrentWorkflowTaskExecutions: concurrency,
    maxConcurrentLocalActivityExecutions: concurrency,
    maxConcurrentActivityTaskExecutions: concurrency,
    maxCachedWorkflows: Math.max(concurrency * 2, 1000),
  };
}
