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
 * the workflow, continued by the next worker, records the run once with the activity's result. The slow activity is a plugin task that waits for a file the test
 * writes (and notes whether it was released or cancelled); it runs only in the worker process.
 */
const fixtures = createPluginsRoot();
const STARTED = join(fixtures.root, 'started');
const RELEASE = join(fixtures.root, 'release');
const ENTRY = `
import { existsSync, writeFileSync } from 'node:fs';
export async function execute(input) {
  if (input.action !== 'shutdown.wait') return { success: false, action: input.action, message: '不支持的动作', data: {} };
  writeFileSync(${JSON.stringify(STARTED)}, 'yes');
  while (!existsSync(${JSON.stringify(RELEASE)}) && !input.context.signal.aborted) await new Promise((r) => setTimeout(r, 50));
  return { success: true, action: input.action, message: '等待结束', data: { summary: { released: existsSync(${JSON.stringify(RELEASE)}) } } };
}
`;
const TASK = {
  key: 'shutdown.wait',
  title: '停机探针任务',
  description: '测试用任务：等待放行文件',
  category: 'probe',
  triggers: [{ type: 'automation_config', key: 'probe' }],
  handle: 'shutdown.wait',
  timeout: 120,
  lockTtlSeconds: 300,
  manualTriggerable: true,
};

let platform: TestPlatform;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  fixtures.write('addons', 'shutdown_probe', fixtureManifest('addons', 'shutdown_probe', { info: { extra: { scheduled_tasks: [TASK] } } }), ENTRY);
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  const plugin = await installPlugin(platform.deps, 'addons', 'shutdown_probe');
  await enablePlugin(platform.deps, plugin.id);
});
afterAll(async () => {
  writeFileSync(RELEASE, 'go');
  await worker?.kill();
  await platform?.close();
  fixtures.cleanup();
});

describe('a worker process stopped with SIGTERM', () => {
  it('lets the activity in flight finish within the grace, records the run once and exits 0', async () => {
    worker = startWorkerProcess(platform, { SHUTDOWN_GRACE_SECONDS: '120' });
    await worker.ready;
    const token = await platform.rootToken();
    const triggered = await platform.api.post('/api/v2/admin/schedules/shutdown.wait/trigger', { token });
    expect(triggered.body.code, triggered.body.message).toBe(0);
    const workflowId = triggered.body.data.workflow_id as string;
    await eventually(async () => (existsSync(STARTED) ? true : null), 600);

    const exited = worker.stop();
    await eventually(async () => (worker?.output().includes('"worker stopping"') ? true : null));
    // The activity waits for the file: the process is still there, holding it.
    expect(worker.running()).toBe(true);
    writeFileSync(RELEASE, 'go');

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
});
