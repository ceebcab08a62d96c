import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin } from '../../domain/plugins/plugin-lifecycle.js';
import { createPluginsRoot, fixtureManifest } from '../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

/**
 * The worker process (activities/worker.ts) stopped with SIGTERM while an activity runs: the
 * activity is given the grace (SHUTDOWN_GRACE_SECONDS) and completes, the process exits 0, and
 * the workflow, continued by the next worker, records the run once with the activity's result.
 * An activity still running when the grace ends is cancelled and observes it
 * (activities/observe-cancellation.ts): its attempt fails as `WorkerShutdown` and is retried by
 * the next worker at once, never left to its start-to-close timeout. The slow activity is a plugin task that waits for a file the test
 * writes (and notes whether it was released or cancelled); it runs only in the worker process.
 */
const fixtures = createPluginsRoot();
/** Files of one task: the plugin writes `<key>.started` when it runs and waits for `<key>.release`. */
const started = (key: string) => join(fixtures.root, `${key}.started`);
const release = (key: string) => join(fixtures.root, `${key}.release`);
const ENTRY = `
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const ROOT = ${JSON.stringify(fixtures.root)};
export async function execute(input) {
  if (!input.action.startsWith('shutdown.')) return { success: false, action: input.action, message: '不支持的动作', data: {} };
  const release = join(ROOT, input.action + '.release');
  writeFileSync(join(ROOT, input.action + '.started'), 'yes');
  while (!existsSync(release) && !input.context.signal.aborted) await new Promise((r) => setTimeout(r, 50));
  return { success: true, action: input.action, message: '等待结束', data: { summary: { released: existsSync(release) } } };
}
`;
const task = (key: string, timeout: number) => ({
  key,
  title: `停机探针任务 ${key}`,
  description: '测试用任务：等待放行文件',
  category: 'probe',
  triggers: [{ type: 'automation_config', key: 'probe' }],
  handle: key,
  timeout,
  lockTtlSeconds: timeout + 120,
  manualTriggerable: true,
});

let platform: TestPlatform;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  fixtures.write('addons', 'shutdown_probe', fixtureManifest('addons', 'shutdown_probe', { info: { extra: { scheduled_tasks: [task('shutdown.wait', 120), task('shutdown.stuck', 30), task('shutdown.beat', 120)] } } }), ENTRY);
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  const plugin = await installPlugin(platform.deps, 'addons', 'shutdown_probe');
  await enablePlugin(platform.deps, plugin.id);
});
afterAll(async () => {
  for (const key of ['shutdown.wait', 'shutdown.stuck', 'shutdown.beat']) writeFileSync(release(key), 'go');
  await worker?.kill();
  await platform?.close();
  fixtures.cleanup();
});

// Each case starts worker processes (tsx compiles the worker at each start): more than the default minute on a loaded machine.
describe('a worker process stopped with SIGTERM', { timeout: 300_000 }, () => {
  it('lets the activity in flight finish within the grace, records the run once and exits 0', async () => {
    worker = startWorkerProcess(platform, { SHUTDOWN_GRACE_SECONDS: '120' });
    await worker.ready;
    const token = await platform.rootToken();
    const triggered = await platform.api.post('/api/v2/admin/schedules/shutdown.wait/trigger', { token });
    expect(triggered.body.code, triggered.body.message).toBe(0);
    const workflowId = triggered.body.data.workflow_id as string;
    await eventually(async () => (existsSync(started('shutdown.wait')) ? true : null), 600);

    const exited = worker.stop();
    await eventually(async () => (worker?.output().includes('"worker stopping"') ? true : null));
    // The activity waits for the file: the process is still there, holding it.
    expect(worker.running()).toBe(true);
    writeFileSync(release('shutdown.wait'), 'go');

    expect(await exited).toBe(0);
    expect(worker.output()).toContain('"worker stopped"');

    // The activity's result is in the history; the workflow's next steps go to the next worker.
    const next = startWorkerProcess(platform);
    worker = next;
    await next.ready;
    const { TaskRun } = platform.deps.db.models;
    await eventually(async () => TaskRun.findOne({ where: { workflow_id: workflowId, status: ['succeeded', 'failed'] } }), 600);
    const runs = await TaskRun.findAll({ where: { workflow_id: workflowId } });
    expect(runs.map((r) => ({ status: r.status, summary: r.summary }))).toEqual([{ status: 'succeeded', summary: { released: true } }]);
    expect(await next.stop()).toBe(0);
  });

  it('ends the activity in flight when the grace runs out: the attempt fails as WorkerShutdown, the process exits 0, the next worker runs it again at once', async () => {
    worker = startWorkerProcess(platform, { SHUTDOWN_GRACE_SECONDS: '1' });
    await worker.ready;
    const token = await platform.rootToken();
    const triggered = await platform.api.post('/api/v2/admin/schedules/shutdown.stuck/trigger', { token });
    expect(triggered.body.code, triggered.body.message).toBe(0);
    const workflowId = triggered.body.data.workflow_id as string;
    await eventually(async () => (existsSync(started('shutdown.stuck')) ? true : null), 600);

    // The activity never finishes by itself (nothing is released): at the end of the grace the
    // worker cancels it, the plugin call stops waiting, and the worker stops cleanly.
    expect(await worker.stop()).toBe(0);
    expect(worker.output()).toContain('"worker stopped"');
    expect(worker.output()).not.toContain('worker stop took too long');
    const { PluginRuntimeLog, TaskRun } = platform.deps.db.models;
    const cut = await PluginRuntimeLog.findAll({ where: { action: 'shutdown.stuck' } });
    expect(cut.map((l) => ({ status: l.status, message: l.message }))).toEqual([{ status: 'failure', message: '插件调用已中止：所在工作已取消（如工作进程停止），将重试' }]);

    writeFileSync(release('shutdown.stuck'), 'go');
    const next = startWorkerProcess(platform);
    worker = next;
    await next.ready;
    // Retried after its backoff (5 s), not after the task's 30 s start-to-close timeout.
    await eventually(async () => TaskRun.findOne({ where: { workflow_id: workflowId, status: ['succeeded', 'failed'] } }), 900);
    const runs = await TaskRun.findAll({ where: { workflow_id: workflowId } });
    expect(runs.map((r) => ({ status: r.status, summary: r.summary }))).toEqual([{ status: 'succeeded', summary: { released: true } }]);
    const events = await historyEvents(workflowId);
    const startedTask = events.find((e) => e.activityTaskStartedEventAttributes && activityTypeOf(events, e) === 'runTask');
    expect(startedTask?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    expect(startedTask?.activityTaskStartedEventAttributes?.lastFailure?.applicationFailureInfo?.type).toBe('WorkerShutdown');
    expect(events.filter((e) => e.activityTaskTimedOutEventAttributes)).toEqual([]);
    expect(await next.stop()).toBe(0);
  });

  it('heartbeats while the activity waits, and a second SIGTERM forces the stop with exit 1', async () => {
    worker = startWorkerProcess(platform, { SHUTDOWN_GRACE_SECONDS: '120' });
    await worker.ready;
    const token = await platform.rootToken();
    const triggered = await platform.api.post('/api/v2/admin/schedules/shutdown.beat/trigger', { token });
    expect(triggered.body.code, triggered.body.message).toBe(0);
    const workflowId = triggered.body.data.workflow_id as string;
    await eventually(async () => (existsSync(started('shutdown.beat')) ? true : null), 600);
    // The regular activity tells the server it is alive (activities/observe-cancellation.ts).
    const handle = platform.temporal.workflow.getHandle(workflowId);
    const beating = await eventually(async () => {
      const pending = (await handle.describe()).raw.pendingActivities?.find((a) => a.activityType?.name === 'runTask');
      return pending?.lastHeartbeatTime ? pending : null;
    }, 600);
    expect(beating.lastHeartbeatTime).toBeTruthy();
    const scheduled = (await historyEvents(workflowId)).find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTask');
    expect(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout?.seconds?.toString()).toBe('30');

    const exited = worker.stop();
    await eventually(async () => (worker?.output().includes('"worker stopping"') ? true : null));
    void worker.stop();
    expect(await exited).toBe(1);
    expect(worker.output()).toContain('worker stop forced by a second signal');

    writeFileSync(release('shutdown.beat'), 'go');
    const next = startWorkerProcess(platform);
    worker = next;
    await next.ready;
    const { TaskRun } = platform.deps.db.models;
    // The abandoned attempt is noticed by its missing heartbeat and retried on the next worker.
    await eventually(async () => TaskRun.findOne({ where: { workflow_id: workflowId, status: ['succeeded', 'failed'] } }), 900);
    const runs = await TaskRun.findAll({ where: { workflow_id: workflowId } });
    expect(runs.map((r) => ({ status: r.status, summary: r.summary }))).toEqual([{ status: 'succeeded', summary: { released: true } }]);
    expect(await next.stop()).toBe(0);
  });
});

async function historyEvents(workflowId: string) {
  const history = await platform.temporal.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

type HistoryEvent = Awaited<ReturnType<typeof historyEvents>>[number];

/** The activity type of a started event (named by its scheduled event). */
function activityTypeOf(events: HistoryEvent[], started: HistoryEvent): string | undefined {
  const scheduledId = started.activityTaskStartedEventAttributes?.scheduledEventId?.toString();
  return events.find((e) => e.eventId?.toString() === scheduledId)?.activityTaskScheduledEventAttributes?.activityType?.name ?? undefined;
}
