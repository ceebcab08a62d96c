import { type Client, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import type { TemporalGateway } from '../../lib/temporal.js';
import type { DomainDeps } from '../deps.js';
import { latestTaskRuns } from './task-runs.js';

/** What the overview needs to know of a declared schedule (the contract lives in workflows/). */
export type ScheduleEntry = { key: string; title: string; scheduleId: string; declaredCadence: string | null };

export type ScheduleState = {
  effectiveCadence: string | null;
  paused: boolean;
  nextRunAt: Date | null;
  state: 'active' | 'paused' | 'missing' | 'unavailable';
};

async function describe(client: Client | null, scheduleId: string): Promise<ScheduleState> {
  if (!client) return { effectiveCadence: null, paused: false, nextRunAt: null, state: 'unavailable' };
  try {
    const d = await client.schedule.getHandle(scheduleId).describe();
    const interval = d.spec.intervals?.[0];
    const everyMs = interval ? Number(interval.every) : null;
    return {
      effectiveCadence: everyMs ? `${Math.round(everyMs / 60_000)}m` : null,
      paused: d.state.paused,
      nextRunAt: d.info.nextActionTimes[0] ?? null,
      state: d.state.paused ? 'paused' : 'active',
    };
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return { effectiveCadence: null, paused: false, nextRunAt: null, state: 'missing' };
    return { effectiveCadence: null, paused: false, nextRunAt: null, state: 'unavailable' };
  }
}

/**
 * Declared cadence from our declarations, effective cadence from the live Temporal Schedule
 * (falling back to the declaration while Temporal is unreachable), and the last recorded run.
 */
export async function scheduleOverview(deps: DomainDeps, temporal: TemporalGateway, entries: ScheduleEntry[]) {
  const client = await temporal.client().catch(() => null);
  const [states, lastRuns] = await Promise.all([
    Promise.all(entries.map((e) => describe(client, e.scheduleId))),
    latestTaskRuns(deps, entries.map((e) => e.key)),
  ]);
  return entries.map((entry, i) => {
    const state = states[i] as ScheduleState;
    return {
      entry,
      state: { ...state, effectiveCadence: state.effectiveCadence ?? entry.declaredCadence },
      lastRun: lastRuns.get(entry.key) ?? null,
    };
  });
}

function unavailable(): AppError {
  return new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '调度服务暂时不可用，请稍后再试');
}

async function scheduleHandle(temporal: TemporalGateway, scheduleId: string) {
  const client = await temporal.client().catch(() => {
    throw unavailable();
  });
  return client.schedule.getHandle(scheduleId);
}

async function withSchedule<T>(temporal: TemporalGateway, scheduleId: string, action: (h: Awaited<ReturnType<typeof scheduleHandle>>) => Promise<T>) {
  const handle = await scheduleHandle(temporal, scheduleId);
  try {
    return await action(handle);
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw notFound('计划任务不存在，请确认调度进程已启动');
    throw err;
  }
}

/** Runs a schedule now; an overlapping run is skipped, as for scheduled slots. */
export async function triggerSchedule(temporal: TemporalGateway, scheduleId: string): Promise<void> {
  await withSchedule(temporal, scheduleId, (h) => h.trigger(ScheduleOverlapPolicy.SKIP));
}

export async function pauseSchedule(temporal: TemporalGateway, scheduleId: string, note: string): Promise<void> {
  await withSchedule(temporal, scheduleId, (h) => h.pause(note));
}

export async function resumeSchedule(temporal: TemporalGateway, scheduleId: string, note: string): Promise<void> {
  await withSchedule(temporal, scheduleId, (h) => h.unpause(note));
}
