import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskRun } from '../../../domain/tasks/task-runs.js';
import { HEARTBEAT_WORKFLOW_TYPE, heartbeatManualWorkflowId } from '../../../workflows/heartbeat/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { scheduleId } from '../../../workflows/schedules.js';
import { recordHistory } from '../../helpers/histories.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { builtinTasksDue } from '../../helpers/schedule-fixtures.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let token: string;
let heartbeatId: string;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, schedules: true });
  token = await platform.rootToken();
  heartbeatId = scheduleId(platform.deps.config.temporal.schedulePrefix, 'heartbeat');
});
afterAll(() => platform?.close());

async function finishedRuns() {
  return platform.deps.db.models.TaskRun.findAll({ where: { task_key: 'heartbeat' }, order: [['id', 'ASC']] });
}

describe('heartbeat schedule', () => {
  it('is a 15-minute Temporal Schedule that skips overlaps and does not replay missed slots', async () => {
    const d = await platform.temporal.schedule.getHandle(heartbeatId).describe();
    expect(d.spec.intervals?.map((i) => Number(i.every))).toEqual([15 * 60_000]);
    expect(d.policies.overlap).toBe('SKIP');
    expect(Number(d.policies.catchupWindow)).toBe(60_000);
    expect(d.action.type).toBe('startWorkflow');
    if (d.action.type === 'startWorkflow') {
      expect(d.action.workflowType).toBe(HEARTBEAT_WORKFLOW_TYPE);
      expect(d.action.taskQueue).toBe(platform.deps.config.temporal.automationQueue);
    }
  });

  it('runs when triggered by an admin and records the run', async () => {
    const res = await platform.api.post('/api/v2/admin/schedules/heartbeat/trigger', { token });
    expect(res.body.code).toBe(0);
    const run = await eventually(async () => (await finishedRuns()).find((r) => r.status !== 'running'));
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'schedule', error: null });
    // The built-in tasks due in the slot of the scheduled time (the registry's).
    expect(run.scheduled_at).not.toBeNull();
    expect(run.summary).toEqual({ ended_sessions_purged: 0, expired_runs_failed: 0, tasks_started: builtinTasksDue('heartbeat', run.scheduled_at!), tasks_skipped: 0, hook_failures: 0 });
    expect(run.workflow_id.startsWith(`schedule:${heartbeatId}`)).toBe(true);
    expect(run.scheduled_at).not.toBeNull();
    const handle = platform.temporal.workflow.getHandle(run.workflow_id);
    const info = await handle.describe();
    expect(info.typedSearchAttributes.get(SearchAttr.TaskKey)).toBe('heartbeat');
    await recordHistory(handle, HEARTBEAT_WORKFLOW_TYPE, 'scheduled-success');
  });

  it('is listed in the overview with declared and effective cadence and its last run', async () => {
    // Live states come within a 2 s request deadline; on a loaded machine an answer may say `unavailable`.
    const item = await eventually(async () => {
      const res = await platform.api.get('/api/v2/admin/schedules/overview', { token });
      const found = res.body.data.list.find((i: { key: string }) => i.key === 'heartbeat');
      return found && found.state !== 'unavailable' ? found : null;
    });
    expect(item).toMatchObject({
      schedule_id: heartbeatId,
      declared_cadence: '15m',
      effective_cadence: '15m',
      state: 'active',
      last_run: { status: 'succeeded' },
    });
    expect(item.next_run_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(item.temporal_ui_url).toContain(`/schedules/${heartbeatId}`);
    const runs = await platform.api.get('/api/v2/admin/schedules/task-runs', { token, query: { task_key: 'heartbeat' } });
    expect(runs.body.data.total).toBeGreaterThanOrEqual(1);
  });

  it('can be paused and resumed by an admin', async () => {
    await platform.api.post('/api/v2/admin/schedules/heartbeat/pause', { token });
    expect((await platform.temporal.schedule.getHandle(heartbeatId).describe()).state.paused).toBe(true);
    const paused = await platform.api.get('/api/v2/admin/schedules/overview', { token });
    expect(paused.body.data.list[0].state).toBe('paused');
    await platform.api.post('/api/v2/admin/schedules/heartbeat/resume', { token });
    expect((await platform.temporal.schedule.getHandle(heartbeatId).describe()).state.paused).toBe(false);
  });

  it('answers 40400 for an undeclared schedule key', async () => {
    const res = await platform.api.post('/api/v2/admin/schedules/unknown/trigger', { token });
    expect(res.body.code).toBe(40400);
  });
});

describe('heartbeat workflow', () => {
  it('records a task run once per workflow run, even when the activity is retried', async () => {
    const input = { taskKey: 'heartbeat', trigger: 'manual' as const, workflowId: 'wf-x', runId: 'run-x', scheduledAt: null };
    const first = await startTaskRun(platform.deps, input);
    const again = await startTaskRun(platform.deps, input);
    expect(again).toBe(first);
    expect(await platform.deps.db.models.TaskRun.count({ where: { workflow_id: 'wf-x' } })).toBe(1);
  });

  it('records a failure in the task-run table and fails visibly in Temporal', async () => {
    const { sequelize } = platform.deps.db;
    await sequelize.query('ALTER TABLE auth_sessions RENAME TO auth_sessions_away');
    const workflowId = heartbeatManualWorkflowId(new Date());
    try {
      const handle = await platform.temporal.workflow.start(HEARTBEAT_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: platform.deps.config.temporal.automationQueue,
        args: [{ trigger: 'manual' }],
      });
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('HeartbeatFailed');
      await recordHistory(handle, HEARTBEAT_WORKFLOW_TYPE, 'manual-failure');
    } finally {
      await sequelize.query('ALTER TABLE auth_sessions_away RENAME TO auth_sessions');
    }
    const row = await platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: workflowId } });
    expect(row).toMatchObject({ status: 'failed', trigger: 'manual' });
    expect(row?.error).toContain('auth_sessions');
    expect(row?.finished_at).not.toBeNull();
  });
});
