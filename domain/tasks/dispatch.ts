import { Op } from 'sequelize';
import type { AppConfig } from '../../lib/config.js';
import { type TaskDispatch, taskWorkflowId } from '../../workflows/task-run/contract.js';
import type { DomainDeps } from '../deps.js';
import { listTasks } from './catalogue.js';
import { isTaskDue } from './due.js';
import type { Cadence, TaskEntry, TaskRunTrigger } from './types.js';

/**
 * Plugin tasks may name any queue (default `automation`); they all run on the configured
 * automation queue (TEMPORAL_AUTOMATION_QUEUE), the one queue whose worker runs tasks. Built-in
 * tasks choose between the automation and the platform queue.
 */
export function taskQueueFor(config: AppConfig, task: TaskEntry): string {
  if (task.source === 'builtin' && task.queue === 'platform') return config.temporal.taskQueue;
  return config.temporal.automationQueue;
}

export function dispatchFor(config: AppConfig, task: TaskEntry, trigger: TaskRunTrigger, slotAt: string | null): TaskDispatch {
  return {
    workflowId: taskWorkflowId(config.temporal.schedulePrefix, task.key),
    taskQueue: taskQueueFor(config, task),
    input: {
      taskKey: task.key,
      title: task.title,
      pluginId: task.pluginId,
      pluginSlug: task.pluginSlug,
      trigger,
      slotAt,
      timeoutSeconds: task.timeout,
      lockTtlSeconds: task.lockTtlSeconds,
    },
  };
}

/**
 * The tasks due in a cadence's slot, in catalogue order, minus those that already ran (or run)
 * for this slot: a second heartbeat in the same slot (an admin trigger at 10:07 belongs to the
 * 10:00 slot) fires its hooks again but starts no task twice.
 */
export async function planCadenceTasks(deps: DomainDeps, input: { cadence: Cadence; slotAt: string }): Promise<TaskDispatch[]> {
  const slot = new Date(input.slotAt);
  const due = (await listTasks(deps)).filter((t) => isTaskDue(t.triggers, input.cadence, slot));
  if (due.length === 0) return [];
  const done = await deps.db.models.TaskRun.findAll({
    attributes: ['task_key'],
    where: { task_key: due.map((t) => t.key), slot_at: slot, status: { [Op.ne]: 'skipped' } },
  });
  const ran = new Set(done.map((r) => r.task_key));
  const trigger: TaskRunTrigger = input.cadence === 'heartbeat' ? 'heartbeat' : 'schedule';
  return due.filter((t) => !ran.has(t.key)).map((t) => dispatchFor(deps.config, t, trigger, input.slotAt));
}
