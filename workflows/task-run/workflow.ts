import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { ACTIVITY_HEARTBEAT_TIMEOUT } from '../activity-liveness.js';
import { fireHook } from '../cadence/steps.js';
import { rootCauseMessage, rootCauseType } from '../workflow-steps.js';
import { handlerTimeouts, TASK_FAILED, TASK_HANDLER_REJECTED, type TaskRunInput, type TaskRunResult } from './contract.js';

const { beginTaskRun, finishTaskRun } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

const EXCEPTION_SUMMARY_MAX = 500;

/**
 * One run of a task, in a fixed order: record it (`running`, with its lock deadline), fire
 * `before_cron` and `task.before`, run the handler (retried, time-limited), record the outcome,
 * then fire `task.after` or `task.failed` and finally `after_cron` (on success and failure).
 * A failed run is recorded before the workflow fails, so it is in the table and red in the UI.
 */
export async function taskRunWorkflow(input: TaskRunInput): Promise<TaskRunResult> {
  const info = workflowInfo();
  const { taskRunId } = await beginTaskRun({
    taskKey: input.taskKey,
    title: input.title,
    pluginId: input.pluginId,
    pluginSlug: input.pluginSlug,
    trigger: input.trigger,
    workflowId: info.workflowId,
    runId: info.runId,
    slotAt: input.slotAt,
    lockTtlSeconds: input.lockTtlSeconds,
  });
  if (taskRunId === null) return { taskRunId: null, status: 'duplicate' };

  const context = {
    task_key: input.taskKey,
    task_name: input.title,
    task_run_id: taskRunId,
    trigger: input.trigger,
    slot_at: input.slotAt,
    plugin_slug: input.pluginSlug,
    workflow_id: info.workflowId,
  };
  await fireHook('before_cron', context);
  await fireHook('task.before', context);

  const limits = handlerTimeouts(input);
  const { runTask } = proxyActivities<Activities>({
    startToCloseTimeout: `${limits.startToCloseSeconds} seconds`,
    scheduleToCloseTimeout: `${limits.scheduleToCloseSeconds} seconds`,
    heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT,
    retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3, nonRetryableErrorTypes: [TASK_HANDLER_REJECTED] },
  });
  try {
    const summary = await runTask({ taskKey: input.taskKey, taskRunId, trigger: input.trigger, slotAt: input.slotAt });
    await finishTaskRun({ id: taskRunId, status: 'succeeded', summary, error: null });
    await fireHook('task.after', { ...context, summary });
    await fireHook('after_cron', { ...context, status: 'succeeded' });
    return { taskRunId, status: 'succeeded' };
  } catch (err) {
    const message = rootCauseMessage(err);
    await finishTaskRun({ id: taskRunId, status: 'failed', summary: null, error: message });
    const exception = { type: rootCauseType(err), message: message.slice(0, EXCEPTION_SUMMARY_MAX) };
    await fireHook('task.failed', { ...context, exception });
    await fireHook('after_cron', { ...context, status: 'failed', exception });
    throw ApplicationFailure.nonRetryable(`task ${input.taskKey} failed: ${message}`, TASK_FAILED);
  }
}
