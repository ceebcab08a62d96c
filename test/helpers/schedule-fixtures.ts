import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { disablePlugin, enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import type { DomainDeps } from '../../domain/deps.js';
import { isTaskDue } from '../../domain/tasks/due.js';
import { BUILTIN_TASKS } from '../../domain/tasks/registry.js';
import type { Cadence } from '../../domain/tasks/types.js';
import { HEARTBEAT_SLOT_MS } from '../../workflows/cadence/contract.js';
import { createPluginsRoot, fixtureManifest } from './plugin-fixtures.js';
import { registerKnownSecret } from './known-secrets.js';

export const PROBE_SECRET = 'sk-probe-SECRET-4242';
/** hook_probe's own secret; its failing listener throws an error carrying it. */
export const HOOK_SECRET = 'sk-hook-SECRET-9090';
registerKnownSecret(PROBE_SECRET);
registerKnownSecret(HOOK_SECRET);

/**
 * Entry of the probe plugins. Listeners append `{hook, listener, context}` lines to a log file
 * the test reads (the worker runs in the test process); `probe.wait` blocks until a release file
 * exists, so a run can be held open while the test triggers the same task again.
 */
function probeEntry(logPath: string, releasePath: string, tag: string): string {
  return `
import { appendFileSync, existsSync } from 'node:fs';
const LOG = ${JSON.stringify(logPath)};
const RELEASE = ${JSON.stringify(releasePath)};
const TAG = ${JSON.stringify(tag)};
function note(hook, listener, context) {
  appendFileSync(LOG, JSON.stringify({ plugin: TAG, hook, listener, context }) + '\\n');
}

export async function execute(input) {
  const secret = String(input.config.api_secret ?? '');
  switch (input.action) {
    case 'health_check':
      return { success: true, action: input.action, message: '连接正常', data: {} };
    case 'probe.ok': {
      const fired = await input.context.hooks.fire('plugins.task_probe.done', { task_key: input.payload.task_key });
      return {
        success: true,
        action: input.action,
        message: '探针任务完成',
        data: {
          summary: [
            { item: 'processed', count: 2, note: 'used key ' + secret, date: input.payload.date },
            { item: 'custom_hook_listeners', count: fired.listeners, entries: fired.entries.length },
          ],
          raw: { upstream_body: 'raw third-party response ' + secret },
        },
      };
    }
    case 'probe.fail':
      return { success: false, action: input.action, message: '探针任务失败：上游拒绝', data: { error_kind: 'permanent', error_code: 'refused' } };
    case 'probe.foreign': {
      try {
        await input.context.hooks.fire('plugins.hook_probe.spoofed', {});
        return { success: true, action: input.action, message: '完成', data: { summary: { refused: false } } };
      } catch (error) {
        return { success: true, action: input.action, message: '完成', data: { summary: { refused: true, reason: String(error.message) } } };
      }
    }
    case 'probe.wait':
      while (!existsSync(RELEASE) && !input.context.signal.aborted) await new Promise((r) => setTimeout(r, 50));
      return { success: true, action: input.action, message: '等待结束', data: { summary: { waited: true } } };
    default:
      return { success: false, action: input.action, message: '不支持的动作', data: {} };
  }
}

export class ProbeListener {
  handle(hook, context) { note(hook, 'class', context); return [{ seen: hook }]; }
  onTask(hook, context) { note(hook, 'class@method', context); return [{ seen: hook }]; }
  pair(hook, context) { note(hook, 'pair', context); return []; }
  boom() { throw new Error('listener exploded with ' + ${JSON.stringify(HOOK_SECRET)}); }
  wrong(hook, context) { note(hook, 'non-array', context); return 'not an array'; }
  async slow(hook, context) { await new Promise((r) => setTimeout(r, 3000)); note(hook, 'slow-late', context); return []; }
}

export function probeCallable(hook, context) {
  note(hook, 'callable', context);
  return [];
}
`;
}

const task = (key: string, triggers: unknown[], handle: string, extra: Record<string, unknown> = {}) => ({
  key,
  title: `探针任务 ${key}`,
  description: '测试用任务',
  category: 'probe',
  triggers,
  handle,
  timeout: 30,
  lockTtlSeconds: 120,
  manualTriggerable: true,
  ...extra,
});

/** Every hook of the spec, each with a listener form; three listeners misbehave on purpose. */
const HOOKS = {
  'tick.every_minute': ['ProbeListener', 'ProbeListener@boom'],
  'tick.every_five_minutes': [['ProbeListener', 'pair'], 'ProbeListener@wrong'],
  after_five_minute_cron: [{ callable: 'probeCallable' }],
  after_half_hour_minute_cron: ['ProbeListener@onTask', 'ProbeListener@slow'],
  'tick.hourly': [{ callable: 'probeCallable' }],
  'tick.daily': ['ProbeListener'],
  before_daily_cron: [{ callable: 'probeCallable' }],
  after_daily_cron: [{ callable: 'probeCallable' }],
  before_cron: [{ callable: 'probeCallable' }],
  after_cron: [{ callable: 'probeCallable' }],
  'task.before': [{ callable: 'probeCallable' }],
  'task.after': [{ callable: 'probeCallable' }],
  'task.failed': [{ callable: 'probeCallable' }],
  'plugins.task_probe.done': ['ProbeListener@onTask'],
};

export type ProbeLine = { plugin: string; hook: string; listener: string; context: Record<string, any> };

/**
 * Three addons under a temporary plugins root: `hook_probe` (listeners for every hook),
 * `task_probe` (tasks: every heartbeat, cron 09:00, failing cron 09:30, a blocking task on
 * cron 09:45 and on demand, one not manually triggerable, one firing a foreign custom hook),
 * and `off_probe` (a hook and a task; installed, enabled, then disabled).
 */
export function createProbePlugins() {
  const fixtures = createPluginsRoot();
  const logPath = join(fixtures.root, 'hooks.log');
  const releasePath = join(fixtures.root, 'release');
  writeFileSync(logPath, '');
  const config = { api_secret: { title: '接口密钥', type: 'password', required: true } };
  fixtures.write(
    'addons',
    'hook_probe',
    fixtureManifest('addons', 'hook_probe', { config, info: { extra: { schedule_hooks: HOOKS } } }),
    probeEntry(logPath, releasePath, 'hook_probe'),
  );
  const tasks = [
    task('probe.every', [{ type: 'heartbeats', every: 1 }], 'probe.ok'),
    task('probe.cron', [{ type: 'cron', expression: '0 9 * * *' }], 'probe.ok'),
    task('probe.fail', [{ type: 'cron', expression: '30 9 * * *' }], 'probe.fail'),
    task('probe.slow', [{ type: 'cron', expression: '45 9 * * *' }, { type: 'automation_config', key: 'probe' }], 'probe.wait', { timeout: 60, lockTtlSeconds: 300 }),
    task('probe.locked', [{ type: 'automation_config', key: 'probe' }], 'probe.ok', { manualTriggerable: false }),
    task('probe.foreign', [{ type: 'automation_config', key: 'probe' }], 'probe.foreign'),
  ];
  fixtures.write(
    'addons',
    'task_probe',
    fixtureManifest('addons', 'task_probe', { config, info: { extra: { scheduled_tasks: tasks } } }),
    probeEntry(logPath, releasePath, 'task_probe'),
  );
  fixtures.write(
    'addons',
    'off_probe',
    fixtureManifest('addons', 'off_probe', {
      info: { extra: { scheduled_tasks: [task('off.every', [{ type: 'heartbeats', every: 1 }], 'probe.ok')], schedule_hooks: { 'tick.every_minute': [{ callable: 'probeCallable' }] } } },
    }),
    probeEntry(logPath, releasePath, 'off_probe'),
  );
  return {
    root: fixtures.root,
    releasePath,
    /** Another plugin folder with the probe entry (for key-collision cases). */
    writePlugin(domain: string, slug: string, manifest: ReturnType<typeof fixtureManifest>) {
      fixtures.write(domain, slug, manifest, probeEntry(logPath, releasePath, slug));
    },
    /** Installs and enables hook_probe and task_probe; installs, enables and disables off_probe. */
    async install(deps: DomainDeps) {
      const hook = await installPlugin(deps, 'addons', 'hook_probe');
      await updatePluginConfig(deps, hook.id, { api_secret: HOOK_SECRET });
      await enablePlugin(deps, hook.id);
      const tasksPlugin = await installPlugin(deps, 'addons', 'task_probe');
      await updatePluginConfig(deps, tasksPlugin.id, { api_secret: PROBE_SECRET });
      await enablePlugin(deps, tasksPlugin.id);
      const off = await installPlugin(deps, 'addons', 'off_probe');
      await enablePlugin(deps, off.id);
      await disablePlugin(deps, off.id);
      return { hookProbeId: hook.id, taskProbeId: tasksPlugin.id, offProbeId: off.id };
    },
    lines(): ProbeLine[] {
      if (!existsSync(logPath)) return [];
      return readFileSync(logPath, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as ProbeLine);
    },
    clearLines() {
      writeFileSync(logPath, '');
    },
    release() {
      writeFileSync(releasePath, 'go');
    },
    cleanup: fixtures.cleanup,
  };
}

/**
 * How many built-in tasks a run of `cadence` starts in the slot at `slotAt` (for the heartbeat,
 * any time inside its 15-minute slot), read from the task registry (`BUILTIN_TASKS`): a new
 * built-in task changes what a run starts without a test to edit.
 */
export function builtinTasksDue(cadence: Cadence, slotAt: string | Date): number {
  const at = new Date(slotAt).getTime();
  const slot = new Date(cadence === 'heartbeat' ? Math.floor(at / HEARTBEAT_SLOT_MS) * HEARTBEAT_SLOT_MS : at);
  return BUILTIN_TASKS.filter((task) => isTaskDue(task.triggers, cadence, slot)).length;
}
