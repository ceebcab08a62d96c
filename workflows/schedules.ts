import { DAILY_TASK_KEY, DAILY_WORKFLOW_TYPE } from './daily/contract.js';
import { HEARTBEAT_TASK_KEY, HEARTBEAT_WORKFLOW_TYPE } from './heartbeat/contract.js';
import { HOURLY_TASK_KEY, HOURLY_WORKFLOW_TYPE } from './hourly/contract.js';

/** Every N minutes (epoch-aligned), or once a day at DAILY_SCHEDULE_TIME in Asia/Shanghai. */
export type ScheduleTiming = { type: 'interval'; minutes: number } | { type: 'daily' };

/** A recurring job run by a Temporal Schedule (overlap SKIP, short catch-up window). */
export type ScheduleDeclaration = {
  key: string;
  title: string;
  workflowType: string;
  queue: 'platform' | 'automation';
  timing: ScheduleTiming;
  args: unknown[];
};

export const SCHEDULES: ScheduleDeclaration[] = [
  {
    key: HEARTBEAT_TASK_KEY,
    title: '15 分钟心跳',
    workflowType: HEARTBEAT_WORKFLOW_TYPE,
    queue: 'automation',
    timing: { type: 'interval', minutes: 15 },
    args: [{ trigger: 'schedule' }],
  },
  {
    key: HOURLY_TASK_KEY,
    title: '每小时计划',
    workflowType: HOURLY_WORKFLOW_TYPE,
    queue: 'automation',
    timing: { type: 'interval', minutes: 60 },
    args: [{ trigger: 'schedule' }],
  },
  {
    key: DAILY_TASK_KEY,
    title: '每日计划',
    workflowType: DAILY_WORKFLOW_TYPE,
    queue: 'automation',
    timing: { type: 'daily' },
    args: [{ trigger: 'schedule' }],
  },
];

export function scheduleId(prefix: string, key: string): string {
  return `${prefix}${key}`;
}

/** The spec's cadence figures: `15m`, `60m`, ... */
export function formatCadence(minutes: number): string {
  return `${minutes}m`;
}

/** A daily time as the cron expression the overview shows (Asia/Shanghai): `0 3 * * *`. */
export function dailyCron(at: { hour: number; minute: number }): string {
  return `${at.minute} ${at.hour} * * *`;
}

/** The declared cadence of a schedule: `15m`, `60m`, or the daily cron expression. */
export function declaredScheduleCadence(timing: ScheduleTiming, dailyAt: { hour: number; minute: number }): string {
  return timing.type === 'interval' ? formatCadence(timing.minutes) : dailyCron(dailyAt);
}

/** Missed slots are not replayed: a run may start at most this late. */
export const SCHEDULE_CATCHUP_WINDOW = '1 minute';
