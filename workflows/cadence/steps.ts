import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { SearchAttr } from '../search-attributes.js';
import { ACTIVITY_HEARTBEAT_TIMEOUT } from '../activity-liveness.js';
import { TASK_OVERLAP_MESSAGE, TASK_RUN_WORKFLOW_TYPE, type TaskDispatch } from '../task-run/contract.js';

const { fireScheduleHook } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT,
  // A hook is fired at most once per moment: listeners keep their own idempotency, and a
  // lost attempt is a warning, not a reason to call every listener again.
  retry: { maximumAttempts: 1 },
});

const { recordSkippedTaskRun } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

/**
 * Fires a hook through its activity (listeners are I/O) and answers how many listeners failed.
 * Never throws: even a lost activity counts as one failure, and the caller goes on.
 */
export async function fireHook(hook: string, context: Record<string, unknown>): Promise<number> {
  try {
    return (await fireScheduleHook({ hook, context })).failed;
  } catch {
    return 1;
  }
}

/**
 * Starts each planned task as its own workflow, in plan order, without waiting for it (the
 * parent may close first: ABANDON). A start refused because the same task key still runs is
 * recorded as a skipped run; any other start failure fails the caller, visibly.
 */
export async function dispatchTasks(plan: TaskDispatch[]): Promise<{ started: number; skipped: number }> {
  let started = 0;
  let skipped = 0;
  for (const dispatch of plan) {
    try {
      await startChild(TASK_RUN_WORKFLOW_TYPE, {
        workflowId: dispatch.workflowId,
        taskQueue: dispatch.taskQueue,
        args: [dispatch.input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        workflowExecutionTimeout: `${dispatch.input.lockTtlSeconds} seconds`,
        typedSearchAttributes: [{ key: SearchAttr.TaskKey, value: dispatch.input.taskKey }],
      });
      started += 1;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const { input } = dispatch;
      await recordSkippedTaskRun({
        taskKey: input.taskKey,
        title: input.title,
        pluginId: input.pluginId,
        pluginSlug: input.pluginSlug,
        trigger: input.trigger,
        workflowId: dispatch.workflowId,
        runId: `skip:${workflowInfo().runId}`,
        slotAt: input.slotAt,
        reason: TASK_OVERLAP_MESSAGE,
      });
      skipped += 1;
    }
  }
  return { started, skipped };
}
