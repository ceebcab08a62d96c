/**
 * One run of a task (built-in or plugin): its own workflow, id `task:<prefix><key>`, so a second
 * start while one runs is refused by Temporal (recorded as a skipped run). The execution timeout
 * is the task's lockTtlSeconds: no run holds its key longer.
 */
export const TASK_RUN_WORKFLOW_TYPE = 'taskRunWorkflow';

/** Failure types (ApplicationFailure `type`). */
export const TASK_FAILED = 'TaskFailed';
/** The handler failed in a way a retry cannot fix (e.g. the plugin said `error_kind: permanent`). */
export const TASK_HANDLER_REJECTED = 'TaskHandlerRejected';
export const TASK_HANDLER_FAILED = 'TaskHandlerFailed';

export const TASK_OVERLAP_MESSAGE = '同一任务仍在运行，本次触发已跳过';

export type TaskRunTriggerKind = 'schedule' | 'heartbeat' | 'manual' | 'automation';

export type TaskRunInput = {
  taskKey: string;
  title: string;
  pluginId: number | null;
  pluginSlug: string | null;
  trigger: TaskRunTriggerKind;
  /** Slot of a scheduled run (ISO); null for manual and automation runs. */
  slotAt: string | null;
  timeoutSeconds: number;
  lockTtlSeconds: number;
};

export type TaskRunResult = {
  /** Null when the task had already run for this slot (nothing was done). */
  taskRunId: number | null;
  status: 'succeeded' | 'duplicate';
};

/** A start the scheduler or the admin API makes: the workflow id, the queue and the input. */
export type TaskDispatch = { workflowId: string; taskQueue: string; input: TaskRunInput };

export function taskWorkflowId(schedulePrefix: string, taskKey: string): string {
  return `task:${schedulePrefix}${taskKey}`;
}

/**
 * Handler time limits: one attempt gets `timeout` (plus a margin so the plugin's own timeout
 * answers first); all attempts together end 45 s before the lock expires, leaving time to
 * record the outcome and fire the after hooks. lockTtlSeconds >= timeout + 60 makes both fit.
 */
export function handlerTimeouts(input: Pick<TaskRunInput, 'timeoutSeconds' | 'lockTtlSeconds'>) {
  return {
    startToCloseSeconds: input.timeoutSeconds + 10,
    scheduleToCloseSeconds: Math.max(input.timeoutSeconds + 15, input.lockTtlSeconds - 45),
  };
}
