/**
 * The three cadence workflows (heartbeat, hourly, daily) share these shapes. Slot arithmetic is
 * pure and lives here so the workflows (deterministic) and the planner (activities) agree.
 */
export type CadenceKind = 'heartbeat' | 'hourly' | 'daily';

export type CadenceInput = {
  /** `schedule` for runs started by the Temporal Schedule (also its admin trigger), `manual` otherwise. */
  trigger: 'schedule' | 'manual';
  /** ISO time inside the slot to run; defaults to the scheduled start time, else the workflow's start. */
  slotAt?: string;
};

export type CadenceResult = {
  taskRunId: number;
  slotAt: string;
  summary: Record<string, number>;
};

const MINUTE = 60_000;
export const HEARTBEAT_SLOT_MS = 15 * MINUTE;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Asia/Shanghai has had no daylight saving since 1991: a fixed offset keeps this pure. */
const SHANGHAI_OFFSET_MS = 8 * HOUR;

/**
 * Start of the slot containing `at`: the 15-minute heartbeat slot, the hour, or the calendar
 * day in Asia/Shanghai. Scheduled runs start on the boundary; an admin trigger at 10:07 belongs
 * to the 10:00 slot, so it never reruns the tasks that slot already ran.
 */
export function slotStart(kind: CadenceKind, at: Date): Date {
  const ms = at.getTime();
  if (kind === 'heartbeat') return new Date(Math.floor(ms / HEARTBEAT_SLOT_MS) * HEARTBEAT_SLOT_MS);
  if (kind === 'hourly') return new Date(Math.floor(ms / HOUR) * HOUR);
  return new Date(Math.floor((ms + SHANGHAI_OFFSET_MS) / DAY) * DAY - SHANGHAI_OFFSET_MS);
}

/** Minute of the hour of a slot (the same in UTC and Asia/Shanghai). */
export function slotMinute(at: Date): number {
  return Math.floor((at.getTime() % HOUR) / MINUTE);
}
