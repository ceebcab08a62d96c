import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAILY_WORKFLOW_TYPE } from '../../../workflows/daily/contract.js';
import { TASK_RUN_WORKFLOW_TYPE } from '../../../workflows/task-run/contract.js';
import { hooksOf, startCadencePlatform } from '../../helpers/cadence.js';
import { builtinTasksDue } from '../../helpers/schedule-fixtures.js';
import { recordHistory } from '../../helpers/histories.js';

let cadence: Awaited<ReturnType<typeof startCadencePlatform>>;

beforeAll(async () => {
  cadence = await startCadencePlatform();
});
afterAll(() => cadence?.close());

describe('the daily run', () => {
  it('fires before_daily_cron, tick.daily and after_daily_cron around its tasks (log retention)', async () => {
    const { handle, result } = await cadence.runCadence(DAILY_WORKFLOW_TYPE, '2026-01-05T19:00:00.000Z');
    // 03:00 on 6 January in Asia/Shanghai: the slot is that day's midnight there.
    expect(result.slotAt).toBe('2026-01-05T16:00:00.000Z');
    // The built-in daily tasks (log retention, the renewal invoices, the reconciliation with the suppliers, …); no plugin task is daily.
    expect(result.summary).toMatchObject({ tasks_started: builtinTasksDue('daily', result.slotAt), hook_failures: 0 });
    expect(hooksOf(cadence.probes.lines(), (l) => l.context.cadence === 'daily')).toEqual([
      'before_daily_cron:callable',
      'tick.daily:class',
      'after_daily_cron:callable',
    ]);
    const retention = await cadence.finishedRun('logs.retention_cleanup', result.slotAt);
    expect(retention).toMatchObject({ status: 'succeeded', trigger: 'schedule', plugin_slug: null });
    expect(retention.summary).toMatchObject({ task_runs_deleted: 0, task_runs_retention_days: 30 });
    await recordHistory(handle, DAILY_WORKFLOW_TYPE, 'daily-tasks');
    const retentionHandle = cadence.platform.temporal.workflow.getHandle(retention.workflow_id, retention.run_id);
    await retentionHandle.result();
    await recordHistory(retentionHandle, TASK_RUN_WORKFLOW_TYPE, 'builtin-retention');
  });
});
