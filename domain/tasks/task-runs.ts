import { Op, UniqueConstraintError } from 'sequelize';
import { notFound } from '../../lib/errors.js';
import type { TaskRunRow, TaskRunStatus, TaskRunTriggerValue } from '../../db/models/task-run.js';
import { sqlParams, sqlRows } from '../../db/sql.js';
import { listLogRows } from '../logs/log-list.js';
import type { DomainDeps } from '../deps.js';
import { label, scheduleRuns } from '../../lib/metrics.js';

export type StartTaskRunInput = {
  taskKey: string;
  trigger: TaskRunTriggerValue;
  workflowId: string;
  runId: string;
  scheduledAt: string | null;
  title?: string;
};

/**
 * Records the start of a cadence run (heartbeat, hourly, daily). Idempotent per (task, workflow
 * run): a retried activity finds the row it already wrote instead of adding a second one.
 */
export async function startTaskRun(deps: DomainDeps, input: StartTaskRunInput): Promise<number> {
  const [row] = await deps.db.models.TaskRun.findOrCreate({
    where: { task_key: input.taskKey, workflow_id: input.workflowId, run_id: input.runId },
    defaults: {
      task_key: input.taskKey,
      task_title: input.title ?? '',
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

export type BeginTaskRunInput = {
  taskKey: string;
  title: string;
  pluginId: number | null;
  pluginSlug: string | null;
  trigger: TaskRunTriggerValue;
  workflowId: string;
  runId: string;
  /** Slot of a scheduled run (one run per task and slot); null for manual and automation runs. */
  slotAt: string | null;
  lockTtlSeconds: number;
};

function findRun(deps: DomainDeps, input: { taskKey: string; workflowId: string; runId: string }) {
  return deps.db.models.TaskRun.findOne({ where: { task_key: input.taskKey, workflow_id: input.workflowId, run_id: input.runId } });
}

/**
 * Records the start of a task run, with its lock deadline. Idempotent per workflow run; answers
 * null when the task already ran (or runs) for this slot, so a slot never runs a task twice.
 */
export async function beginTaskRun(deps: DomainDeps, input: BeginTaskRunInput): Promise<{ taskRunId: number | null }> {
  const existing = await findRun(deps, input);
  if (existing) return { taskRunId: existing.id };
  const now = new Date();
  try {
    const row = await deps.db.models.TaskRun.create({
      task_key: input.taskKey,
      task_title: input.title.slice(0, 128),
      plugin_id: input.pluginId,
      plugin_slug: input.pluginSlug,
      trigger: input.trigger,
      workflow_id: input.workflowId,
      run_id: input.runId,
      status: 'running',
      scheduled_at: input.slotAt ? new Date(input.slotAt) : null,
      slot_at: input.slotAt ? new Date(input.slotAt) : null,
      deadline_at: new Date(now.getTime() + input.lockTtlSeconds * 1000),
      started_at: now,
    });
    return { taskRunId: row.id };
  } catch (error) {
    if (!(error instanceof UniqueConstraintError)) throw error;
    const raced = await findRun(deps, input);
    return { taskRunId: raced ? raced.id : null };
  }
}

export type SkippedTaskRunInput = Omit<BeginTaskRunInput, 'lockTtlSeconds'> & { reason: string };

/**
 * A start refused because the same task key is still running: recorded as `skipped`, with the
 * running workflow's id. `runId` is the refused attempt's own marker (idempotent per attempt).
 */
export async function recordSkippedTaskRun(deps: DomainDeps, input: SkippedTaskRunInput): Promise<number> {
  const now = new Date();
  const [row] = await deps.db.models.TaskRun.findOrCreate({
    where: { task_key: input.taskKey, workflow_id: input.workflowId, run_id: input.runId },
    defaults: {
      task_key: input.taskKey,
      task_title: input.title.slice(0, 128),
      plugin_id: input.pluginId,
      plugin_slug: input.pluginSlug,
      trigger: input.trigger,
      workflow_id: input.workflowId,
      run_id: input.runId,
      status: 'skipped',
      summary: { reason: 'overlap', message: input.reason },
      scheduled_at: input.slotAt ? new Date(input.slotAt) : null,
      slot_at: input.slotAt ? new Date(input.slotAt) : null,
      started_at: now,
      finished_at: now,
    },
  });
  return row.id;
}

export type FinishTaskRunInput = {
  id: number;
  status: Extract<TaskRunStatus, 'succeeded' | 'failed'>;
  summary: Record<string, unknown> | unknown[] | null;
  error: string | null;
};

export async function finishTaskRun(deps: DomainDeps, input: FinishTaskRunInput): Promise<void> {
  const [, finished] = await deps.db.models.TaskRun.update(
    { status: input.status, summary: input.summary, error: input.error?.slice(0, 2000) ?? null, finished_at: new Date() },
    { where: { id: input.id, status: 'running' }, returning: true },
  );
  for (const run of finished) scheduleRuns.inc({ task: label(run.task_key), status: input.status });
}

export const EXPIRED_RUN_ERROR = '运行超过锁定时长（lockTtlSeconds）仍未结束，工作流已被 Temporal 终止';

/**
 * Closes runs whose lock deadline passed while still `running`: Temporal ended their workflow
 * at the execution timeout without a chance to record it. Run by every heartbeat.
 */
export async function failExpiredTaskRuns(deps: DomainDeps, now = new Date()): Promise<number> {
  const [count] = await deps.db.models.TaskRun.update(
    { status: 'failed', error: EXPIRED_RUN_ERROR, finished_at: now },
    { where: { status: 'running', deadline_at: { [Op.lt]: now } } },
  );
  return count;
}

export type TaskRunListQuery = {
  page: number;
  page_size: number;
  task_key?: string | undefined;
  status?: TaskRunStatus | undefined;
  trigger?: TaskRunTriggerValue | undefined;
  plugin_slug?: string | undefined;
};

/** Newest first, on the table's indexes; bounded as every log list (`listLogRows`). */
export async function listTaskRuns(deps: DomainDeps, query: TaskRunListQuery) {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['task_key', 'status', 'trigger', 'plugin_slug'] as const) {
    if (query[key] !== undefined) conditions.push(`${key} = ${param(query[key])}`);
  }
  const { rows, total } = await listLogRows<TaskRunRow['_creationAttributes']>(deps, {
    select: '*',
    from: 'task_runs t',
    conditions,
    values,
    order: 't.started_at DESC, t.id DESC',
    paging: query,
  });
  // Model instances, as the other reads of task runs answer.
  return { rows: deps.db.models.TaskRun.bulkBuild(rows, { isNewRecord: false, raw: true }), total };
}

export async function getTaskRun(deps: DomainDeps, id: number): Promise<TaskRunRow> {
  const row = await deps.db.models.TaskRun.findByPk(id);
  if (!row) throw notFound('任务运行记录不存在');
  return row;
}

/** The latest run (not counting skipped starts) of each task key, for the schedule overview. */
export async function latestTaskRuns(deps: DomainDeps, taskKeys: string[]): Promise<Map<string, TaskRunRow>> {
  const result = new Map<string, TaskRunRow>();
  if (taskKeys.length === 0) return result;
  const { TaskRun } = deps.db.models;
  const rows = await sqlRows<TaskRunRow['_creationAttributes']>(
    deps,
    `SELECT DISTINCT ON (task_key) * FROM task_runs
      WHERE task_key = ANY($1) AND status <> 'skipped'
      ORDER BY task_key, started_at DESC, id DESC`,
    [taskKeys],
  );
  // Model instances, as the other reads of task runs answer (built from the rows, as Sequelize would).
  for (const row of TaskRun.bulkBuild(rows, { isNewRecord: false, raw: true })) result.set(row.task_key, row);
  return result;
}
