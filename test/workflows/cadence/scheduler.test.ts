import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRED_RUN_ERROR } from '../../../domain/tasks/task-runs.js';
import { HEARTBEAT_WORKFLOW_TYPE } from '../../../workflows/heartbeat/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { TASK_RUN_WORKFLOW_TYPE, taskWorkflowId } from '../../../workflows/task-run/contract.js';
import { recordHistory } from '../../helpers/histories.js';
import { hooksOf, startCadencePlatform } from '../../helpers/cadence.js';
import type { TestPlatform } from '../../helpers/platform.js';
import { startWorkerProcess } from '../../helpers/worker-process.js';
import { builtinTasksDue, HOOK_SECRET } from '../../helpers/schedule-fixtures.js';
import { eventually } from '../../helpers/wait.js';

/** The heartbeat cadence and what all three cadences share (workflows/cadence/run-cadence.ts); the hourly and daily runs are tested in their own folders. */
let cadence: Awaited<ReturnType<typeof startCadencePlatform>>;
let platform: TestPlatform;
let probes: Awaited<ReturnType<typeof startCadencePlatform>>['probes'];

beforeAll(async () => {
  cadence = await startCadencePlatform();
  ({ platform, probes } = cadence);
});
afterAll(() => cadence?.close());

const runCadence = (type: string, slotAt: string) => cadence.runCadence(type, slotAt);
const finishedRun = (taskKey: string, slotAt: string) => cadence.finishedRun(taskKey, slotAt);

describe('the heartbeat', () => {
  const slot = '2026-01-05T01:00:00.000Z'; // 09:00 Asia/Shanghai, a :00 slot

  it('fires the legacy minute hooks in order, starts the due tasks, and survives failing listeners', async () => {
    probes.clearLines();
    const { handle, result } = await runCadence(HEARTBEAT_WORKFLOW_TYPE, slot);
    expect(result.slotAt).toBe(slot);
    // The built-in tasks due at 09:00, probe.every (every heartbeat) and probe.cron (09:00); not probe.fail (09:30) nor
    // off.every (disabled plugin).
    expect(result.summary).toMatchObject({ tasks_started: builtinTasksDue('heartbeat', slot) + 2, tasks_skipped: 0, hook_failures: 2 });
    await finishedRun('probe.every', slot);
    await finishedRun('probe.cron', slot);
    const lines = probes.lines();
    // The slow listener timed out (its warning is the next test); it still writes its own line once
    // its 3 s sleep ends, which a loaded machine reaches before this read: not a hook fired in order.
    expect(hooksOf(lines, (l) => l.context.cadence === 'heartbeat' && l.listener !== 'slow-late')).toEqual([
      'tick.every_minute:class',
      'tick.every_five_minutes:pair',
      'tick.every_five_minutes:non-array',
      'after_five_minute_cron:callable',
      'after_half_hour_minute_cron:class@method',
    ]);
    const tick = lines.find((l) => l.hook === 'tick.every_minute');
    expect(tick?.context).toMatchObject({ hook: 'tick.every_minute', cadence: 'heartbeat', slot_at: slot, trigger: 'manual' });
    expect(tick?.context.fired_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(lines.some((l) => l.plugin === 'off_probe')).toBe(false);
    expect(await platform.deps.db.models.TaskRun.count({ where: { task_key: 'off.every' } })).toBe(0);
    await recordHistory(handle, HEARTBEAT_WORKFLOW_TYPE, 'dispatch-with-hooks');
  });

  it('writes a warning record for the throwing and the timed-out listener', async () => {
    const logs = await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { plugin_slug: 'hook_probe' }, order: [['id', 'ASC']] });
    const failed = logs.find((l) => l.action === 'hook:tick.every_minute' && l.status === 'failure');
    expect(failed?.message).toBe('钩子监听器执行失败');
    expect(failed?.error_detail).toContain('listener exploded');
    expect(failed?.error_detail).toContain('[REDACTED]');
    expect(failed?.error_detail).not.toContain(HOOK_SECRET);
    const late = logs.find((l) => l.action === 'hook:after_half_hour_minute_cron' && l.status === 'timeout');
    expect(late?.message).toBe('钩子监听器执行超时');
    const odd = logs.find((l) => l.action === 'hook:tick.every_five_minutes' && l.message.includes('不是数组'));
    expect(odd?.status).toBe('success');
  });

  it('runs each task with before_cron, task.before, its custom hook, task.after and after_cron in order', async () => {
    // The custom hook's context carries the payload the task gave it (its task_key) and source_plugin.
    // after_cron fires once the task's run is closed, so it may come after the first test's wait.
    const lines = await eventually(async () => {
      const seen = probes.lines().filter((l) => l.context.task_key === 'probe.every');
      return seen.some((l) => l.hook === 'after_cron') ? seen : null;
    });
    expect(lines.map((l) => `${l.hook}:${l.listener}`)).toEqual([
      'before_cron:callable',
      'task.before:callable',
      'plugins.task_probe.done:class@method',
      'task.after:callable',
      'after_cron:callable',
    ]);
    expect(lines[2]?.context.source_plugin).toBe('task_probe');
    const before = lines.find((l) => l.hook === 'task.before' && l.context.task_key === 'probe.every');
    expect(before?.context).toMatchObject({ task_key: 'probe.every', task_name: '探针任务 probe.every', trigger: 'heartbeat', slot_at: slot });
    const after = lines.find((l) => l.hook === 'task.after' && l.context.task_key === 'probe.every');
    expect(after?.context.summary[0]).toMatchObject({ item: 'processed', count: 2 });
    const done = lines.find((l) => l.hook === 'after_cron' && l.context.task_key === 'probe.every');
    expect(done?.context.status).toBe('succeeded');
  });

  it('stores the plugin summary only, redacted, with the run', async () => {
    const run = await finishedRun('probe.every', slot);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'heartbeat', plugin_slug: 'task_probe', task_title: '探针任务 probe.every', error: null });
    expect(run.workflow_id).toBe(taskWorkflowId(platform.deps.config.temporal.schedulePrefix, 'probe.every'));
    expect(run.summary).toEqual([
      { item: 'processed', count: 2, note: 'used key [REDACTED]', date: '2026-01-04' },
      { item: 'custom_hook_listeners', count: 1, entries: 1 },
    ]);
    expect(JSON.stringify(run.summary)).not.toContain('raw third-party');
    expect(run.deadline_at!.getTime() - run.started_at.getTime()).toBe(120_000);
    const info = await platform.temporal.workflow.getHandle(run.workflow_id, run.run_id).describe();
    expect(info.typedSearchAttributes.get(SearchAttr.TaskKey)).toBe('probe.every');
    const handle = platform.temporal.workflow.getHandle(run.workflow_id, run.run_id);
    await handle.result();
    await recordHistory(handle, TASK_RUN_WORKFLOW_TYPE, 'plugin-success');
  });

  it('starts no task twice for one slot when the heartbeat runs again in it', async () => {
    probes.clearLines();
    const { result } = await runCadence(HEARTBEAT_WORKFLOW_TYPE, '2026-01-05T01:07:00.000Z');
    expect(result.slotAt).toBe(slot);
    expect(result.summary).toMatchObject({ tasks_started: 0, tasks_skipped: 0 });
    expect(probes.lines().some((l) => l.hook === 'tick.every_minute')).toBe(true);
    expect(await platform.deps.db.models.TaskRun.count({ where: { task_key: 'probe.every', slot_at: new Date(slot) } })).toBe(1);
  });

  it('records a failing task, fires task.failed with the exception and after_cron, and does not retry a permanent failure', async () => {
    probes.clearLines();
    const failSlot = '2026-01-05T01:30:00.000Z'; // 09:30 Asia/Shanghai
    const { result } = await runCadence(HEARTBEAT_WORKFLOW_TYPE, failSlot);
    // The built-in tasks due at 09:30, probe.every and probe.fail.
    expect(result.summary).toMatchObject({ tasks_started: builtinTasksDue('heartbeat', failSlot) + 2 });
    const run = await finishedRun('probe.fail', failSlot);
    expect(run).toMatchObject({ status: 'failed', error: '探针任务失败：上游拒绝', summary: null });
    const lines = await eventually(async () => {
      const found = probes.lines().filter((l) => l.context.task_key === 'probe.fail');
      return found.some((l) => l.hook === 'after_cron') ? found : null;
    });
    expect(lines.map((l) => l.hook)).toEqual(['before_cron', 'task.before', 'task.failed', 'after_cron']);
    expect(lines[2]?.context.exception).toEqual({ type: 'TaskHandlerRejected', message: '探针任务失败：上游拒绝' });
    expect(lines[3]?.context).toMatchObject({ status: 'failed' });
    expect(await platform.deps.db.models.PluginRuntimeLog.count({ where: { action: 'probe.fail' } })).toBe(1);
    const handle = platform.temporal.workflow.getHandle(run.workflow_id, run.run_id);
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as { type?: string }).type).toBe('TaskFailed');
    await recordHistory(handle, TASK_RUN_WORKFLOW_TYPE, 'plugin-failure');
  });
});

describe('lock deadlines', () => {
  it('a run still running after its lock TTL is closed as failed by the next heartbeat', async () => {
    const [[row]] = (await platform.deps.db.sequelize.query(`
      INSERT INTO task_runs (task_key, trigger, workflow_id, run_id, status, started_at, deadline_at)
      VALUES ('probe.stuck', 'manual', 'task:stuck', 'r-stuck', 'running', now() - interval '10 minutes', now() - interval '1 minute')
      RETURNING id`)) as [[{ id: number }], unknown];
    const { result } = await runCadence(HEARTBEAT_WORKFLOW_TYPE, '2026-01-05T03:15:00.000Z');
    expect(result.summary.expired_runs_failed).toBe(1);
    const stuck = await platform.deps.db.models.TaskRun.findByPk(row.id);
    expect(stuck).toMatchObject({ status: 'failed', error: EXPIRED_RUN_ERROR });
    expect(stuck?.finished_at).not.toBeNull();
  });
});

describe('custom hooks', () => {
  it('refuse a plugin firing outside its own namespace', async () => {
    const handle = await platform.temporal.workflow.start(TASK_RUN_WORKFLOW_TYPE, {
      workflowId: taskWorkflowId(platform.deps.config.temporal.schedulePrefix, 'probe.foreign'),
      taskQueue: platform.deps.config.temporal.automationQueue,
      args: [{ taskKey: 'probe.foreign', title: '外部钩子', pluginId: null, pluginSlug: 'task_probe', trigger: 'automation', slotAt: null, timeoutSeconds: 30, lockTtlSeconds: 120 }],
    });
    const result = (await handle.result()) as { taskRunId: number };
    const run = await platform.deps.db.models.TaskRun.findByPk(result.taskRunId);
    expect(run?.summary).toEqual({ refused: true, reason: '自定义钩子名称必须是 plugins.task_probe.<action>' });
    expect(run?.trigger).toBe('automation');
  });
});

describe('plugin tasks with several workers polling', () => {
  it('runs each task a plugin registers once per slot, however many heartbeats of that slot the workers run at once', { timeout: 300_000 }, async () => {
    const slotAt = '2026-01-12T01:00:00.000Z'; // 09:00 Asia/Shanghai: probe.every and probe.cron are due
    // Two worker processes beside this file's own worker, on the same queues, with the probe plugins.
    const workers = [startWorkerProcess(platform), startWorkerProcess(platform)];
    try {
      await Promise.all(workers.map((w) => w.ready));
      probes.clearLines();
      await Promise.all(Array.from({ length: 6 }, () => runCadence(HEARTBEAT_WORKFLOW_TYPE, slotAt)));
      for (const taskKey of ['probe.every', 'probe.cron']) {
        // One run of the slot (a start refused while that run is going is recorded as `skipped`, never run).
        const runs = await eventually(async () => {
          const rows = await platform.deps.db.models.TaskRun.findAll({ where: { task_key: taskKey, slot_at: new Date(slotAt) } });
          const ran = rows.filter((r) => r.status !== 'skipped');
          return ran.length > 0 && ran.every((r) => r.status !== 'running') ? ran : null;
        });
        expect(runs.map((r) => r.status)).toEqual(['succeeded']);
        // The task's own work (its custom hook) happened once.
        await eventually(async () => (probes.lines().some((l) => l.hook === 'after_cron' && l.context.task_key === taskKey) ? true : null));
        const done = probes.lines().filter((l) => l.hook === 'plugins.task_probe.done' && l.context.task_key === taskKey);
        expect(done).toHaveLength(1);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });
});
