import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { createPluginBinding } from '../../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../../domain/plugins/plugin-install.js';
import { disablePlugin, enablePlugin, updatePluginConfig } from '../../../domain/plugins/plugin-lifecycle.js';
import { enabledHookListeners, listEnabledPluginTasks } from '../../../plugins/runtime/enabled-plugins.js';
import { invokePlugin } from '../../../plugins/runtime/invoke.js';
import { runCancellable, WorkCancelledError } from '../../../lib/cancellation.js';
import { createPluginsRoot, fixtureManifest } from '../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

const SECRET = 'sk-invoke-SECRET-7788';
const fixtures = createPluginsRoot();
let platform: TestPlatform;
let pluginId: number;
const actor = SYSTEM_ACTOR;

beforeAll(async () => {
  const config = { app_id: { type: 'text', required: true }, api_secret: { type: 'password', required: true } };
  const extra = {
    scheduled_tasks: [{ key: 'report', title: '报表', description: '', category: 'sms', triggers: [{ type: 'heartbeats', every: 4 }], handle: 'report', timeout: 30, lockTtlSeconds: 90, manualTriggerable: false }],
    schedule_hooks: { 'tick.daily': ['DailyReport', { callable: 'onTick' }] },
  };
  fixtures.write('sms', 'fake_sms', fixtureManifest('sms', 'fake_sms', { config, info: { extra } }));
  fixtures.write('sms', 'other_sms', fixtureManifest('sms', 'other_sms', { config }));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  const plugin = await installPlugin(platform.deps, 'sms', 'fake_sms');
  pluginId = plugin.id;
  await updatePluginConfig(platform.deps, pluginId, { app_id: 'APP-1', api_secret: SECRET });
  await enablePlugin(platform.deps, pluginId);
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

async function logOf(id: number | null) {
  const row = await platform.deps.db.models.PluginRuntimeLog.findByPk(id ?? 0);
  expect(row).not.toBeNull();
  return row!;
}

describe('invokePlugin', () => {
  it('passes decrypted config and records a redacted success', async () => {
    const res = await invokePlugin(platform.deps, {
      domain: 'sms',
      slug: 'fake_sms',
      action: 'echo',
      payload: { phone: '13800000000', password: 'user-pass', note: `has ${SECRET}` },
      actor: { type: 'admin', id: 1, name: 'root' },
      traceId: 'trace-1',
    });
    expect(res).toMatchObject({ success: true, status: 'success', message: '完成', data: { keys: ['api_secret', 'app_id'] } });
    const log = await logOf(res.logId);
    expect(log).toMatchObject({ domain: 'sms', plugin_id: pluginId, plugin_slug: 'fake_sms', actor_type: 'admin', actor_id: 1, action: 'echo', status: 'success', trace_id: 'trace-1' });
    expect(log.duration_ms).toBeGreaterThanOrEqual(0);
    expect(log.request_summary).toContain('13800000000');
    expect(log.request_summary).not.toContain('user-pass');
    expect(JSON.stringify(log.toJSON())).not.toContain(SECRET);
  });

  it('turns a thrown error into a Chinese failure and keeps the secret out of the log', async () => {
    const res = await invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'boom', actor });
    expect(res).toMatchObject({ success: false, status: 'failure', message: '插件执行失败，请稍后重试', data: {} });
    const log = await logOf(res.logId);
    expect(log.status).toBe('failure');
    expect(log.error_detail).toContain('upstream refused with secret [REDACTED]');
    expect(JSON.stringify(log.toJSON())).not.toContain(SECRET);
  });

  it('times out with a Chinese message and aborts the signal', async () => {
    const started = Date.now();
    const res = await invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'slow', actor, timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res).toMatchObject({ success: false, status: 'timeout', message: '插件响应超时，请稍后重试' });
    expect((await logOf(res.logId)).status).toBe('timeout');
  });

  it('stops waiting when the work calling it is cancelled: logged as aborted, then thrown on', async () => {
    const controller = new AbortController();
    const call = runCancellable(controller.signal, () => invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'slow', actor, traceId: 'trace-cancelled' }));
    setTimeout(() => controller.abort(new Error('WORKER_SHUTDOWN')), 100);
    await expect(call).rejects.toBeInstanceOf(WorkCancelledError);
    const logs = await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { trace_id: 'trace-cancelled' } });
    expect(logs.map((l) => ({ status: l.status, message: l.message }))).toEqual([{ status: 'failure', message: '插件调用已中止：所在工作已取消（如工作进程停止），将重试' }]);
    // Already cancelled: the plugin is not called at all.
    await expect(runCancellable(controller.signal, () => invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'echo', actor, traceId: 'trace-late' }))).rejects.toBeInstanceOf(WorkCancelledError);
    expect(await platform.deps.db.models.PluginRuntimeLog.count({ where: { trace_id: 'trace-late' } })).toBe(0);
  });

  it('replaces a non-Chinese message and keeps diagnostics in the log only', async () => {
    const english = await invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'english', actor });
    expect(english.message).toBe('插件执行失败，请稍后重试');
    expect((await logOf(english.logId)).error_detail).toContain('Invalid signature from gateway');
    const leak = await invokePlugin(platform.deps, { domain: 'sms', slug: 'fake_sms', action: 'leak', actor });
    expect(leak).not.toHaveProperty('diagnostics');
    const log = await logOf(leak.logId);
    expect(log.error_detail).toContain('secret is [REDACTED]');
    expect(JSON.stringify(log.toJSON())).not.toContain(SECRET);
  });

  it('resolves the default binding of a scene, falling back to the default scene', async () => {
    const other = await installPlugin(platform.deps, 'sms', 'other_sms');
    await expect(invokePlugin(platform.deps, { domain: 'sms', action: 'echo', actor })).rejects.toMatchObject({ code: 42200, message: '未配置可用的短信插件' });
    const binding = await createPluginBinding(platform.deps, { plugin_id: pluginId, binding_type: 'default' });
    const res = await invokePlugin(platform.deps, { domain: 'sms', binding: { scene: 'recharge' }, action: 'health_check', actor });
    expect(res).toMatchObject({ success: true, message: '连接正常' });
    expect((await logOf(res.logId)).binding_id).toBe(binding.id);
    await expect(createPluginBinding(platform.deps, { plugin_id: other.id, binding_type: 'default', scene: 'recharge' })).rejects.toMatchObject({ code: 42200 });
    await disablePlugin(platform.deps, pluginId);
    const refused = await invokePlugin(platform.deps, { domain: 'sms', action: 'echo', actor }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 42200, message: '短信插件未启用' });
    await enablePlugin(platform.deps, pluginId);
  });

  it('lists tasks and hook listeners of enabled plugins only', async () => {
    expect((await listEnabledPluginTasks(platform.deps)).map((t) => [t.slug, t.task.key, t.task.queue])).toEqual([['fake_sms', 'report', 'automation']]);
    const listeners = await enabledHookListeners(platform.deps, 'tick.daily');
    expect(listeners).toHaveLength(2);
    for (const l of listeners) expect(await l.call('tick.daily', {})).toEqual([]);
    await disablePlugin(platform.deps, pluginId);
    expect(await listEnabledPluginTasks(platform.deps)).toEqual([]);
    expect(await enabledHookListeners(platform.deps, 'tick.daily')).toEqual([]);
    await enablePlugin(platform.deps, pluginId);
  });
});
