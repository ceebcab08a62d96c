import { HEARTBEAT_TASK_KEY, HEARTBEAT_WORKFLOW_TYPE } from './heartbeat/contract.js';

/** A recurring job run by a Temporal Schedule (overlap SKIP, short catch-up window). */
export type ScheduleDeclaration = {
  key: string;
  title: string;
  workflowType: string;
  queue: 'platform' | 'automation';
  /** Interval in minutes: the spec's 15-minute heartbeat slots. */
  everyMinutes: number;
  declaredCadence: string | null;
  args: unknown[];
};

export const SCHEDULES: ScheduleDeclaration[] = [
  {
    key: HEARTBEAT_TASK_KEY,
    title: '15 分钟心跳',
    workflowType: HEARTBEAT_WORKFLOW_TYPE,
    queue: 'automation',
    everyMinutes: 15,
    declaredCadence: '15m',
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

/** Missed slots are not replayed: a run may start at most this late. */
export const SCHEDULE_CATCHUP_WINDOW = '1 minute';
