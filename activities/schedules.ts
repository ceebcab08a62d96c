import type { Duration } from '@temporalio/common';
import { type Client, ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';
import type { AppConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { TIME_ZONE } from '../lib/time.js';
import { SearchAttr } from '../workflows/search-attributes.js';
import { SCHEDULE_CATCHUP_WINDOW, SCHEDULES, type ScheduleDeclaration, scheduleId } from '../workflows/schedules.js';

function taskQueueFor(config: AppConfig, declaration: ScheduleDeclaration): string {
  return declaration.queue === 'automation' ? config.temporal.automationQueue : config.temporal.taskQueue;
}

/** Intervals are epoch-aligned (the 15-minute slots, the hour); the daily time is read in Asia/Shanghai. */
function scheduleSpec(config: AppConfig, declaration: ScheduleDeclaration): ScheduleSpec {
  if (declaration.timing.type === 'interval') return { intervals: [{ every: `${declaration.timing.minutes} minutes` as Duration }] };
  const { hour, minute } = config.schedules.dailyAt;
  return { calendars: [{ hour, minute, comment: '每日计划（Asia/Shanghai）' }], timezone: TIME_ZONE };
}

function scheduleOptions(config: AppConfig, declaration: ScheduleDeclaration) {
  return {
    scheduleId: scheduleId(config.temporal.schedulePrefix, declaration.key),
    spec: scheduleSpec(config, declaration),
    action: {
      type: 'startWorkflow' as const,
      workflowType: declaration.workflowType,
      workflowId: `schedule:${scheduleId(config.temporal.schedulePrefix, declaration.key)}`,
      taskQueue: taskQueueFor(config, declaration),
      args: declaration.args,
      typedSearchAttributes: [{ key: SearchAttr.TaskKey, value: declaration.key }],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: SCHEDULE_CATCHUP_WINDOW as Duration, pauseOnFailure: false },
    memo: { title: declaration.title },
  };
}

/**
 * Creates each declared schedule, or brings an existing one back to its declaration (an
 * admin's pause is kept). Safe to run from every worker at start: a concurrent create
 * loses the race with ScheduleAlreadyRunning and falls through to the update.
 */
export async function ensureSchedules(client: Client, config: AppConfig, logger: Logger, onChange?: (event: string, scheduleId: string) => Promise<void>): Promise<void> {
  for (const declaration of SCHEDULES) {
    const options = scheduleOptions(config, declaration);
    try {
      await client.schedule.create(options);
      logger.info({ scheduleId: options.scheduleId }, 'schedule created');
      await onChange?.('schedule.created', options.scheduleId);
      continue;
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    try {
      await client.schedule.getHandle(options.scheduleId).update((previous) => ({
        ...previous,
        spec: options.spec,
        action: options.action,
        policies: { ...previous.policies, ...options.policies },
      }));
      await onChange?.('schedule.synced', options.scheduleId);
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
}
