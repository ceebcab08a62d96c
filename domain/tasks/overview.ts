import { type ScheduleHandle, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { type TemporalGateway, TemporalUnavailableError } from '../../lib/temporal.js';
import type { TaskRunRow } from '../../db/models/task-run.js';
import { HEARTBEAT_SLOT_MS } from '../../workflows/cadence/contract.js';
import { dailyCron, declaredScheduleCadence, SCHEDULES, scheduleId, type ScheduleDeclaration } from '../../workflows/schedules.js';
import type { DomainDeps } from '../deps.js';
import { listTasks } from './catalogue.js';
import { drivingCadences, isTaskDue, taskCadence } from './due.js';
import type { Cadence, TaskEntry } from './types.js';
import { latestTaskRuns } from './task-runs.js';

export type ScheduleStateName = 'active' | 'paused' | 'missing' | 'unavailable';

export type ScheduleState = {
  effectiveCadence: string | null;
  /** Live interval in minutes (interval schedules only). */
  everyMinutes: number | null;
  nextRunAt: Date | null;
  state: ScheduleStateName;
};

const MISSING: ScheduleState = { effectiveCadence: null, everyMinutes: null, nextRunAt: null, state: 'missing' };
const UNAVAILABLE: ScheduleState = { effectiveCadence: null, everyMinutes: null, nextRunAt: null, state: 'unavailable' };

/** A schedule's live state within the request deadline; `unavailable` when Temporal does not answer in time. */
async function describe(temporal: TemporalGateway, id: string): Promise<ScheduleState> {
  try {
    const d = await temporal.withDeadline((client) => client.schedule.getHandle(id).describe());
    const interval = d.spec.intervals?.[0];
    const calendar = d.spec.calendars?.[0];
    const everyMinutes = interval ? Math.round(Number(interval.every) / 60_000) : null;
    let effectiveCadence: string | null = everyMinutes ? `${everyMinutes}m` : null;
    if (!effectiveCadence && calendar) {
      effectiveCadence = dailyCron({ hour: calendar.hour[0]?.start ?? 0, minute: calendar.minute[0]?.start ?? 0 });
    }
    return {
      effectiveCadence,
      everyMinutes,
      nextRunAt: d.state.paused ? null : (d.info.nextActionTimes[0] ?? null),
      state: d.state.paused ? 'paused' : 'active',
    };
  } catch (err) {
    return err instanceof ScheduleNotFoundError ? MISSING : UNAVAILABLE;
  }
}

export type OverviewItem = {
  kind: 'schedule' | 'task';
  key: string;
  title: string;
  source: 'system' | 'builtin' | 'plugin';
  pluginSlug: string | null;
  category: string;
  queue: string;
  scheduleId: string | null;
  declaredCadence: string | null;
  effectiveCadence: string;
  /** Tasks: the state of the schedule that drives them; `on_demand` when none does. */
  state: ScheduleStateName | 'on_demand';
  nextRunAt: Date | null;
  manualTriggerable: boolean;
  lastRun: TaskRunRow | null;
};

/** The value of `effective_cadence` for a task no schedule drives (automation-config only). */
export const ON_DEMAND = 'on_demand';

const YEAR_OF_SLOTS = 366 * 96;

/** The first heartbeat slot from `from` on at which the task is due (looks one year ahead). */
function nextHeartbeatDue(task: TaskEntry, from: Date): Date | null {
  const first = Math.ceil(from.getTime() / HEARTBEAT_SLOT_MS);
  for (let i = 0; i < YEAR_OF_SLOTS; i++) {
    const slot = new Date((first + i) * HEARTBEAT_SLOT_MS);
    if (isTaskDue(task.triggers, 'heartbeat', slot)) return slot;
  }
  return null;
}

function taskItem(task: TaskEntry, states: Map<Cadence, ScheduleState>, declared: Record<Cadence, string>, now: Date): Omit<OverviewItem, 'lastRun'> {
  const heartbeat = states.get('heartbeat');
  const live = (c: Cadence) => states.get(c)?.effectiveCadence ?? declared[c];
  const declaredFigures = { heartbeatMinutes: 15, hourly: declared.hourly, daily: declared.daily };
  const liveFigures = { heartbeatMinutes: heartbeat?.everyMinutes ?? 15, hourly: live('hourly'), daily: live('daily') };
  const drivers = drivingCadences(task.triggers);
  const driverStates = drivers.map((c) => states.get(c)?.state ?? 'unavailable');
  const nextRuns = drivers
    .map((c) => {
      const s = states.get(c);
      if (!s || s.state !== 'active') return null;
      return c === 'heartbeat' ? nextHeartbeatDue(task, s.nextRunAt ?? now) : s.nextRunAt;
    })
    .filter((d): d is Date => d !== null)
    .sort((a, b) => a.getTime() - b.getTime());
  return {
    kind: 'task',
    key: task.key,
    title: task.title,
    source: task.source,
    pluginSlug: task.pluginSlug,
    category: task.category,
    queue: task.queue,
    scheduleId: null,
    declaredCadence: taskCadence(task.triggers, declaredFigures),
    effectiveCadence: taskCadence(task.triggers, liveFigures) ?? ON_DEMAND,
    state: drivers.length === 0 ? 'on_demand' : driverStates.includes('active') ? 'active' : (driverStates[0] ?? 'unavailable'),
    nextRunAt: nextRuns[0] ?? null,
    manualTriggerable: task.manualTriggerable,
  };
}

/**
 * The three schedules (declared cadence from our declarations, effective cadence and state
 * from the live Temporal Schedules, falling back to the declaration while Temporal is
 * unreachable) and every task, built-in and of enabled plugins, with the cadence its triggers
 * declare and the one they get from the live schedules, plus each key's last recorded run.
 */
export async function scheduleOverview(deps: DomainDeps, temporal: TemporalGateway): Promise<OverviewItem[]> {
  const prefix = deps.config.temporal.schedulePrefix;
  const dailyAt = deps.config.schedules.dailyAt;
  const [described, tasks] = await Promise.all([
    Promise.all(SCHEDULES.map((s) => describe(temporal, scheduleId(prefix, s.key)))),
    listTasks(deps),
  ]);
  const states = new Map<Cadence, ScheduleState>();
  SCHEDULES.forEach((s, i) => states.set(s.key as Cadence, described[i] as ScheduleState));
  const declared = Object.fromEntries(SCHEDULES.map((s) => [s.key, declaredScheduleCadence(s.timing, dailyAt)])) as Record<Cadence, string>;
  const now = new Date();
  const items: Omit<OverviewItem, 'lastRun'>[] = [
    ...SCHEDULES.map((s: ScheduleDeclaration, i) => {
      const state = described[i] as ScheduleState;
      return {
        kind: 'schedule' as const,
        key: s.key,
        title: s.title,
        source: 'system' as const,
        pluginSlug: null,
        category: 'schedule',
        queue: s.queue,
        scheduleId: scheduleId(prefix, s.key),
        declaredCadence: declaredScheduleCadence(s.timing, dailyAt),
        effectiveCadence: state.effectiveCadence ?? declaredScheduleCadence(s.timing, dailyAt),
        state: state.state,
        nextRunAt: state.nextRunAt,
        manualTriggerable: true,
      };
    }),
    ...tasks.map((t) => taskItem(t, states, declared, now)),
  ];
  const lastRuns = await latestTaskRuns(deps, items.map((i) => i.key));
  return items.map((item) => ({ ...item, lastRun: lastRuns.get(item.key) ?? null }));
}

function unavailable(): AppError {
  return new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '调度服务暂时不可用，请稍后再试');
}

/**
 * An action on a live schedule within the request deadline. These actions are Temporal's own
 * (there is nothing in the database to fall back to), so Temporal not answering in time is 50300.
 */
async function withSchedule<T>(temporal: TemporalGateway, id: string, action: (h: ScheduleHandle) => Promise<T>) {
  try {
    return await temporal.withDeadline((client) => action(client.schedule.getHandle(id)));
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw notFound('计划任务不存在，请确认调度进程已启动');
    if (err instanceof TemporalUnavailableError) throw unavailable();
    throw err;
  }
}

/** Runs a schedule now; an overlapping run is skipped, as for scheduled slots. */
export async function triggerSchedule(temporal: TemporalGateway, id: string): Promise<void> {
  await withSchedule(temporal, id, (h) => h.trigger(ScheduleOverlapPolicy.SKIP));
}

export async function pauseSchedule(temporal: TemporalGateway, id: string, note: string): Promise<void> {
  await withSchedule(temporal, id, (h) => h.pause(note));
}

export async function resumeSchedule(temporal: TemporalGateway, id: string, note: string): Promise<void> {
  await withSchedule(temporal, id, (h) => h.unpause(note));
}
