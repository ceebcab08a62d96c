import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AppError, conflict, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import { type TemporalGateway, TemporalUnavailableError } from '../../lib/temporal.js';
import { SearchAttr } from '../../workflows/search-attributes.js';
import { TASK_OVERLAP_MESSAGE, TASK_RUN_WORKFLOW_TYPE } from '../../workflows/task-run/contract.js';
import type { DomainDeps } from '../deps.js';
import { recordSkippedTaskRun } from './task-runs.js';
import { findTask } from './catalogue.js';
import { dispatchFor } from './dispatch.js';

export type StartTaskInput = {
  key: string;
  /** `manual`: an admin (only manualTriggerable tasks); `automation`: platform code (any task, e.g. automation_config triggers). */
  trigger: 'manual' | 'automation';
};

/**
 * Starts one run of a task now, as workflow `task:<key>`. While a run of the same key is
 * still going, Temporal refuses the start: the attempt is recorded as a skipped run and
 * answered with 40900. Unknown keys are 40400, tasks not manually triggerable 42200.
 */
export async function startTask(deps: DomainDeps, temporal: TemporalGateway, input: StartTaskInput) {
  const task = await findTask(deps, input.key);
  if (!task) throw notFound('任务不存在，或其所属插件未启用');
  if (input.trigger === 'manual' && !task.manualTriggerable) {
    throw validationError({ key: [`任务 ${task.key} 不允许手动触发`] }, `任务 ${task.key} 不允许手动触发`);
  }
  const dispatch = dispatchFor(deps.config, task, input.trigger, null);
  try {
    // Within the request deadline: a manual run is Temporal's to start; nothing is promised when it cannot be (50300).
    const handle = await temporal.withDeadline((client) =>
      client.workflow.start(TASK_RUN_WORKFLOW_TYPE, {
        workflowId: dispatch.workflowId,
        taskQueue: dispatch.taskQueue,
        args: [dispatch.input],
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowExecutionTimeout: `${task.lockTtlSeconds} seconds`,
        typedSearchAttributes: [{ key: SearchAttr.TaskKey, value: task.key }],
      }),
    );
    return { key: task.key, workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  } catch (error) {
    if (error instanceof TemporalUnavailableError) throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '调度服务暂时不可用，请稍后再试');
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const taskRunId = await recordSkippedTaskRun(deps, {
      ...dispatch.input,
      workflowId: dispatch.workflowId,
      runId: `skip:${randomUUID()}`,
      reason: TASK_OVERLAP_MESSAGE,
    });
    throw conflict(`任务 ${task.key} 正在运行，本次触发已跳过`, { task_run_id: taskRunId, workflow_id: dispatch.workflowId });
  }
}
