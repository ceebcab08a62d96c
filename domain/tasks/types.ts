import type { TaskTrigger } from '../../plugins/runtime/contract.js';
import type { DomainDeps } from '../deps.js';

/** The three recurring schedules; every task is driven by one of them (or only on demand). */
export type Cadence = 'heartbeat' | 'hourly' | 'daily';

/**
 * A task trigger: the plugin contract's three kinds, plus `cadence` for built-in jobs that run
 * from the hourly or daily schedule (so the daily time stays one setting, DAILY_SCHEDULE_TIME).
 */
export type TaskTriggerSpec = TaskTrigger | { type: 'cadence'; cadence: 'hourly' | 'daily' };

/** How a task run was started (the `trigger` column of task_runs). */
export type TaskRunTrigger = 'schedule' | 'heartbeat' | 'manual' | 'automation';

/** What a handler gets to know about its run; `slotAt` is the idempotency basis of scheduled runs. */
export type TaskRunContext = {
  taskRunId: number;
  taskKey: string;
  trigger: TaskRunTrigger;
  /** Start of the heartbeat, hour or day slot the run belongs to; null for manual and automation runs. */
  slotAt: Date | null;
};

/** A summary array or object: counts and ids, never raw third-party data or secrets. */
export type TaskSummary = Record<string, unknown> | unknown[];

export type BuiltinTask = {
  key: string;
  title: string;
  description: string;
  category: string;
  triggers: TaskTriggerSpec[];
  /** `automation` (default for tasks) or `platform`; mapped to the configured Temporal queues. */
  queue: 'automation' | 'platform';
  /** Seconds one handler attempt may take. */
  timeout: number;
  /** Seconds a run may hold its key (the workflow's execution timeout); at least timeout + 60. */
  lockTtlSeconds: number;
  manualTriggerable: boolean;
  handler: (deps: DomainDeps, run: TaskRunContext) => Promise<TaskSummary>;
};

/** A task of either source, as the scheduler, the overview and the manual trigger see it. */
export type TaskEntry = {
  key: string;
  title: string;
  description: string;
  category: string;
  triggers: TaskTriggerSpec[];
  /** The queue name as declared (plugins may name any queue; all run on the automation queue). */
  queue: string;
  timeout: number;
  lockTtlSeconds: number;
  manualTriggerable: boolean;
  source: 'builtin' | 'plugin';
  pluginId: number | null;
  pluginSlug: string | null;
};
