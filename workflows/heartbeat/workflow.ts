import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { ScheduledStartTime } from '../search-attributes.js';
import { HEARTBEAT_TASK_KEY, type HeartbeatInput, type HeartbeatResult } from './contract.js';

const { startTaskRun, finishTaskRun, runHeartbeatHousekeeping } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

/** An ActivityFailure says only "Activity task failed"; the reason is at the end of the cause chain. */
function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/**
 * The 15-minute heartbeat: records a task run, does the heartbeat's housekeeping, and closes
 * the run as succeeded or failed. A failure is recorded first, then rethrown, so it is both
 * in the task-run table and red in the Temporal UI: never silent.
 */
export async function heartbeatWorkflow(input: HeartbeatInput): Promise<HeartbeatResult> {
  const info = workflowInfo();
  const scheduledAt = info.typedSearchAttributes.get(ScheduledStartTime);
  const taskRunId = await startTaskRun({
    taskKey: HEARTBEAT_TASK_KEY,
    trigger: input.trigger,
    workflowId: info.workflowId,
    runId: info.runId,
    scheduledAt: scheduledAt ? scheduledAt.toISOString() : null,
  });
  try {
    const summary = await runHeartbeatHousekeeping();
    await finishTaskRun({ id: taskRunId, status: 'succeeded', summary, error: null });
    return { taskRunId, summary };
  } catch (err) {
    const message = rootCauseMessage(err);
    await finishTaskRun({ id: taskRunId, status: 'failed', summary: null, error: message });
    throw ApplicationFailure.nonRetryable(`heartbeat failed: ${message}`, 'HeartbeatFailed');
  }
}
