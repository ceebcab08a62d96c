import type { Duration } from '@temporalio/common';
import { type Client, ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { AppConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { SearchAttr } from '../workflows/search-attributes.js';
import { SCHEDULE_CATCHUP_WINDOW, SCHEDULES, type ScheduleDeclaration, scheduleId } from '../workflows/schedules.js';

function taskQueueFor(config: AppConfig, declaration: ScheduleDeclaration): string {
  return declaration.queue === 'automation' ? config.temporal.automationQueue : config.temporal.taskQueue;
}

function scheduleOptions(config: AppConfig, declaration: ScheduleDeclaration) {
  return {
    scheduleId: scheduleId(config.temporal.schedulePrefix, declaration.key),
    spec: { intervals: [{ every: `${declaration.everyMinutes} minutes` as Duration }] },
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
export async function ensureSchedules(client: Client, config: AppConfig, logger: Logger): Promise<void> {
  for (const declaration of SCHEDULES) {
    const options = scheduleOptions(config, declaration);
    try {
      await client.schedule.create(options);
      logger.info({ scheduleId: options.scheduleId }, 'schedule created');
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
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
}
