import { ApplicationFailure } from '@temporalio/common';
import { purgeEndedSessions } from '../domain/auth/cleanup.js';
import type { DomainDeps } from '../domain/deps.js';
import { beginTaskRun, failExpiredTaskRuns, recordSkippedTaskRun } from '../domain/tasks/task-runs.js';
import { planCadenceTasks } from '../domain/tasks/dispatch.js';
import { runTask } from '../domain/tasks/run-task.js';
import { TaskFailure } from '../domain/tasks/task-failure.js';
import type { TaskRunTrigger, TaskSummary } from '../domain/tasks/types.js';
import { fireScheduleHook } from '../plugins/runtime/fire-hook.js';
import { TASK_HANDLER_FAILED, TASK_HANDLER_REJECTED } from '../workflows/task-run/contract.js';

/** The scheduler's activities: planning, task runs and hooks. */
export function createTaskActivities(deps: DomainDeps) {
  return {
    async runHeartbeatHousekeeping(): Promise<Record<string, number>> {
      return {
        ended_sessions_purged: await purgeEndedSessions(deps),
        expired_runs_failed: await failExpiredTaskRuns(deps),
      };
    },
    planCadenceTasks: (input: Parameters<typeof planCadenceTasks>[1]) => planCadenceTasks(deps, input),
    beginTaskRun: (input: Parameters<typeof beginTaskRun>[1]) => beginTaskRun(deps, input),
    recordSkippedTaskRun: (input: Parameters<typeof recordSkippedTaskRun>[1]) => recordSkippedTaskRun(deps, input),
    /** Never throws: listener failures are counted and logged as warnings. */
    async fireScheduleHook(input: { hook: string; context: Record<string, unknown> }) {
      const fired = await fireScheduleHook(deps, input.hook, { ...input.context, fired_at: new Date().toISOString() });
      return { hook: fired.hook, listeners: fired.listeners, failed: fired.failed, warnings: fired.warnings };
    },
    async runTask(input: { taskKey: string; taskRunId: number; trigger: TaskRunTrigger; slotAt: string | null }): Promise<TaskSummary> {
      try {
        return await runTask(deps, { ...input, slotAt: input.slotAt ? new Date(input.slotAt) : null });
      } catch (error) {
        if (!(error instanceof TaskFailure)) throw error;
        throw ApplicationFailure.create({
          message: error.message,
          type: error.retryable ? TASK_HANDLER_FAILED : TASK_HANDLER_REJECTED,
          nonRetryable: !error.retryable,
        });
      }
    },
  };
}
