import type { WhereOptions } from 'sequelize';
import type { TaskRunRow, TaskRunStatus } from '../../db/models/task-run.js';
import type { DomainDeps } from '../deps.js';

export type StartTaskRunInput = {
  taskKey: string;
  trigger: 'schedule' | 'manual';
  workflowId: string;
  runId: string;
  scheduledAt: string | null;
};

/**
 * Records the start of a task run. Idempotent per (task, workflow run): a retried activity
 * finds the row it already wrote instead of adding a second one.
 */
export async function startTaskRun(deps: DomainDeps, input: StartTaskRunInput): Promise<number> {
  const [row] = await deps.db.models.TaskRun.findOrCreate({
    where: { task_key: input.taskKey, workflow_id: input.workflowId, run_id: input.runId },
    defaults: {
      task_key: input.taskKey,
      trigger: input.trigger,
      workflow_id: input.workflowId,
      run_id: input.runId,
      status: 'running',
      scheduled_at: input.scheduledAt ? new Date(input.scheduledAt) : null,
      started_at: new Date(),
    },
  });
  return row.id;
}

export type FinishTaskRunInput = {
  id: number;
  status: Exclude<TaskRunStatus, 'running'>;
  summary: Record<string, unknown> | null;
  error: string | null;
};

export async function finishTaskRun(deps: DomainDeps, input: FinishTaskRunInput): Promise<void> {
  await deps.db.models.TaskRun.update(
    { status: input.status, summary: input.summary, error: input.error?.slice(0, 2000) ?? null, finished_at: new Date() },
    { where: { id: input.id, status: 'running' } },
  );
}

export type TaskRunListQuery = {
  page: number;
  page_size: number;
  task_key?: string | undefined;
  status?: TaskRunStatus | undefined;
};

export async function listTaskRuns(deps: DomainDeps, query: TaskRunListQuery) {
  const where: WhereOptions<TaskRunRow> = {};
  if (query.task_key) Object.assign(where, { task_key: query.task_key });
  if (query.status) Object.assign(where, { status: query.status });
  const { rows, count } = await deps.db.models.TaskRun.findAndCountAll({
    where,
    order: [['started_at', 'DESC'], ['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

/** The latest run of each task key, for the schedule overview. */
export async function latestTaskRuns(deps: DomainDeps, taskKeys: string[]): Promise<Map<string, TaskRunRow>> {
  const result = new Map<string, TaskRunRow>();
  await Promise.all(
    taskKeys.map(async (key) => {
      const row = await deps.db.models.TaskRun.findOne({ where: { task_key: key }, order: [['started_at', 'DESC'], ['id', 'DESC']] });
      if (row) result.set(key, row);
    }),
  );
  return result;
}
