import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_WORKFLOW_TYPE } from '../../../../workflows/heartbeat/contract.js';
import { scheduleId } from '../../../../workflows/schedules.js';
import { taskWorkflowId } from '../../../../workflows/task-run/contract.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
import { fixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { createProbePlugins, PROBE_SECRET } from '../../../helpers/schedule-fixtures.js';
import { eventually } from '../../../helpers/wait.js';

const BASE = '/api/v2/admin/schedules';
const probes = createProbePlugins();
let platform: TestPlatform;
let token: string;
let plugins: { taskProbeId: number };

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: true,
    schedules: true,
    env: { PLUGINS_DIR: probes.root, DAILY_SCHEDULE_TIME: '04:30', SCHEDULE_HOOK_TIMEOUT_MS: '1000' },
  });
  token = await platform.rootToken();
  plugins = await probes.install(platform.deps);
});
afterAll(async () => {
  probes.release();
  await platform?.close();
  probes.cleanup();
});

async function runOf(workflowId: string) {
  return eventually(async () => {
    const row = await platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: workflowId, status: ['succeeded', 'failed'] }, order: [['id', 'DESC']] });
    return row ?? null;
  });
}

describe('schedules', () => {
  it('are three Temporal Schedules: 15 minutes, hourly, and daily at DAILY_SCHEDULE_TIME in Asia/Shanghai, all overlap SKIP', async () => {
    const prefix = platform.deps.config.temporal.schedulePrefix;
    const hourly = await platform.temporal.schedule.getHandle(scheduleId(prefix, 'hourly')).describe();
    expect(hourly.spec.intervals?.map((i) => Number(i.every))).toEqual([60 * 60_000]);
    const daily = await platform.temporal.schedule.getHandle(scheduleId(prefix, 'daily')).describe();
    expect(daily.spec.timezone).toBe('Asia/Shanghai');
    expect(daily.spec.calendars?.[0]?.hour).toEqual([{ start: 4, end: 4, step: 1 }]);
    expect(daily.spec.calendars?.[0]?.minute).toEqual([{ start: 30, end: 30, step: 1 }]);
    for (const d of [hourly, daily]) {
      expect(d.policies.overlap).toBe('SKIP');
      expect(Number(d.policies.catchupWindow)).toBe(60_000);
    }
  });

  it('hourly and daily can be paused and resumed; a task cannot, an unknown key is 40400', async () => {
    const prefix = platform.deps.config.temporal.schedulePrefix;
    for (const key of ['hourly', 'daily']) {
      expect((await platform.api.post(`${BASE}/${key}/pause`, { token })).body.code).toBe(0);
      expect((await platform.temporal.schedule.getHandle(scheduleId(prefix, key)).describe()).state.paused).toBe(true);
      const overview = await platform.api.get(`${BASE}/overview`, { token });
      expect(overview.body.data.list.find((i: { key: string }) => i.key === key).state).toBe('paused');
      expect((await platform.api.post(`${BASE}/${key}/resume`, { token })).body.code).toBe(0);
      expect((await platform.temporal.schedule.getHandle(scheduleId(prefix, key)).describe()).state.paused).toBe(false);
    }
    const refused = await platform.api.post(`${BASE}/probe.every/pause`, { token });
    expectError(refused, 42200, 422);
    expect(refused.body.data.errors.key[0]).toContain('不能单独暂停');
    expectError(await platform.api.post(`${BASE}/nothing/resume`, { token }), 40400, 404);
  });
});

describe('overview', () => {
  it('lists the schedules then every built-in and enabled plugin task with declared and effective cadence', async () => {
    // Live states come within a 2 s request deadline; on a loaded machine an answer may say `unavailable`.
    const list = await eventually(async () => {
      const res = await platform.api.get(`${BASE}/overview`, { token });
      const items = res.body.data.list as Array<Record<string, any>>;
      return items.some((i) => i['state'] === 'unavailable') ? null : items;
    });
    expect(list.slice(0, 3).map((i) => [i.key, i.kind, i.declared_cadence, i.effective_cadence])).toEqual([
      ['heartbeat', 'schedule', '15m', '15m'],
      ['hourly', 'schedule', '60m', '60m'],
      ['daily', 'schedule', '30 4 * * *', '30 4 * * *'],
    ]);
    const byKey = new Map(list.map((i) => [i.key, i]));
    expect(byKey.get('logs.retention_cleanup')).toMatchObject({
      kind: 'task',
      source: 'builtin',
      declared_cadence: '30 4 * * *',
      effective_cadence: '30 4 * * *',
      state: 'active',
      manual_triggerable: true,
      queue: 'automation',
    });
    expect(byKey.get('probe.every')).toMatchObject({ source: 'plugin', plugin_slug: 'task_probe', declared_cadence: '15m', effective_cadence: '15m', state: 'active' });
    expect(byKey.get('probe.cron')).toMatchObject({ declared_cadence: '0 9 * * *', effective_cadence: '0 9 * * *' });
    expect(byKey.get('probe.cron')?.next_run_at).toMatch(/ 09:00:00$/);
    expect(byKey.get('probe.locked')).toMatchObject({ declared_cadence: null, effective_cadence: 'on_demand', state: 'on_demand', manual_triggerable: false, next_run_at: null });
    expect(byKey.has('off.every')).toBe(false);
    expect(byKey.get('probe.every')?.temporal_ui_url).toContain(encodeURIComponent('TaskKey="probe.every"'));
  });
});

describe('manual trigger', () => {
  it('runs a manually triggerable task and refuses one that is not, and unknown keys', async () => {
    const res = await platform.api.post(`${BASE}/probe.cron/trigger`, { token });
    expect(res.body.data).toEqual({ key: 'probe.cron', kind: 'task', workflow_id: taskWorkflowId(platform.deps.config.temporal.schedulePrefix, 'probe.cron') });
    const run = await runOf(res.body.data.workflow_id);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', slot_at: null, plugin_id: plugins.taskProbeId });
    const refused = await platform.api.post(`${BASE}/probe.locked/trigger`, { token });
    expectError(refused, 42200, 422);
    expect(refused.body.message).toBe('任务 probe.locked 不允许手动触发');
    expect(await platform.deps.db.models.TaskRun.count({ where: { task_key: 'probe.locked' } })).toBe(0);
    expectError(await platform.api.post(`${BASE}/off.every/trigger`, { token }), 40400, 404);
  });

  it('skips and records a second start of a task key while a run still holds it, from the API and from the heartbeat', async () => {
    const first = await platform.api.post(`${BASE}/probe.slow/trigger`, { token });
    expect(first.body.code).toBe(0);
    const workflowId = first.body.data.workflow_id as string;
    await eventually(async () => platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: workflowId, status: 'running' } }));
    const again = await platform.api.post(`${BASE}/probe.slow/trigger`, { token });
    expectError(again, 40900, 409);
    expect(again.body.message).toBe('任务 probe.slow 正在运行，本次触发已跳过');
    // 09:45 Asia/Shanghai: probe.slow's cron is due, but its key is held.
    const handle = await platform.temporal.workflow.start(HEARTBEAT_WORKFLOW_TYPE, {
      workflowId: `test-heartbeat:${platform.id}:overlap`,
      taskQueue: platform.deps.config.temporal.automationQueue,
      args: [{ trigger: 'manual', slotAt: '2026-01-05T01:45:00.000Z' }],
    });
    const result = (await handle.result()) as { summary: Record<string, number> };
    expect(result.summary).toMatchObject({ tasks_skipped: 1 });
    await recordHistory(handle, HEARTBEAT_WORKFLOW_TYPE, 'overlap-skipped');
    const skipped = await platform.api.get(`${BASE}/task-runs`, { token, query: { task_key: 'probe.slow', status: 'skipped' } });
    expect(skipped.body.data.total).toBe(2);
    expect(skipped.body.data.list.map((r: { trigger: string }) => r.trigger).sort()).toEqual(['heartbeat', 'manual']);
    probes.release();
    const done = await runOf(workflowId);
    expect(done).toMatchObject({ status: 'succeeded', summary: { waited: true } });
  });
});

describe('task runs', () => {
  it('are listed with paging and filters, without summaries, and shown in detail with the redacted summary', async () => {
    const list = await platform.api.get(`${BASE}/task-runs`, { token, query: { task_key: 'probe.cron', status: 'succeeded', page_size: 1 } });
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 1 });
    const item = list.body.data.list[0];
    expect(item).toMatchObject({ task_key: 'probe.cron', task_title: '探针任务 probe.cron', plugin_slug: 'task_probe', trigger: 'manual', status: 'succeeded', error_excerpt: null });
    expect(item).not.toHaveProperty('summary');
    const detail = await platform.api.get(`${BASE}/task-runs/${item.id}`, { token });
    expect(detail.body.data.summary[0]).toMatchObject({ item: 'processed', note: 'used key [REDACTED]' });
    expect(detail.raw).not.toContain(PROBE_SECRET);
    expect(detail.body.data.deadline_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expectError(await platform.api.get(`${BASE}/task-runs/999999`, { token }), 40400, 404);
    expectError(await platform.api.get(`${BASE}/task-runs`, { token, query: { status: 'lost' } }), 42200, 422);
  });
});

describe('log retention', () => {
  it('deletes only task runs, plugin runtime logs, login logs, notification records and supplier calls older than their retention, expired idempotency keys and outbox rows done over a week ago', async () => {
    const { sequelize } = platform.deps.db;
    // The request and plugin runtime logs lose whole months (partitions): their old rows are 70 days old, a month wholly past the 30 days.
    const user = await platform.deps.db.models.User.create({ email: 'retention@example.com', phone: null, nickname: '', password_hash: 'x', status: 'active' });
    await sequelize.query(`
      INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, status, sent_at, created_at) VALUES
        ('invoice_unpaid', 'mail', 'invoice', 1, 'unpaid', ${user.id}, 'sent', now(), now() - interval '181 days'),
        ('invoice_unpaid', 'mail', 'invoice', 2, 'unpaid', ${user.id}, 'sent', now(), now() - interval '179 days');`);
    await sequelize.query(`
      INSERT INTO task_runs (task_key, trigger, workflow_id, run_id, status, started_at, finished_at) VALUES
        ('old.done', 'manual', 'wf-old', 'r1', 'succeeded', now() - interval '31 days', now() - interval '31 days'),
        ('old.running', 'manual', 'wf-old', 'r2', 'running', now() - interval '31 days', NULL),
        ('new.done', 'manual', 'wf-new', 'r3', 'succeeded', now() - interval '29 days', now() - interval '29 days');
      INSERT INTO plugin_runtime_logs (domain, plugin_slug, actor_type, action, status, duration_ms, created_at) VALUES
        ('addons', 'gone', 'system', 'old', 'success', 1, now() - interval '70 days'),
        ('addons', 'gone', 'system', 'new', 'success', 1, now() - interval '29 days');
      INSERT INTO login_logs (surface, account, success, created_at) VALUES
        ('admin', 'old-login', false, now() - interval '91 days'),
        ('admin', 'new-login', false, now() - interval '89 days');
      INSERT INTO idempotency_keys (scope, key, method, route, fingerprint, state, claim_token, expires_at) VALUES
        ('client:1', 'expired-key', 'POST', '/r', repeat('a', 64), 'in_progress', gen_random_uuid(), now() - interval '1 minute'),
        ('client:1', 'live-key', 'POST', '/r', repeat('a', 64), 'in_progress', gen_random_uuid(), now() + interval '23 hours');
      INSERT INTO outbox (kind, key, done_at, created_at) VALUES
        ('start_refund', 'retention:old-done', now() - interval '8 days', now() - interval '8 days'),
        ('start_refund', 'retention:new-done', now() - interval '6 days', now() - interval '8 days'),
        ('start_refund', 'retention:old-pending', NULL, now() - interval '30 days');
      INSERT INTO api_request_logs (method, route, status, duration_ms, created_at) VALUES
        ('GET', '/old', 200, 1, now() - interval '70 days'),
        ('GET', '/new', 200, 1, now() - interval '29 days');
      INSERT INTO system_logs (level, category, event, created_at) VALUES
        ('info', 'startup', 'old', now() - interval '91 days'),
        ('info', 'startup', 'new', now() - interval '89 days');
      WITH s AS (INSERT INTO suppliers (code, name, interface_type, base_url, account) VALUES ('retention', '留存', 'upstream_finance_api', 'https://up.example.com', 'a') RETURNING id)
      INSERT INTO supplier_calls (supplier_id, action, failed, duration_ms, created_at)
        SELECT s.id, v.action, false, 1, v.at FROM s, (VALUES ('old', now() - interval '3 days'), ('new', now() - interval '1 day')) AS v(action, at);
    `);
    const res = await platform.api.post(`${BASE}/logs.retention_cleanup/trigger`, { token });
    const run = await runOf(res.body.data.workflow_id);
    expect(run.summary).toEqual({
      task_runs_deleted: 1,
      task_runs_retention_days: 30,
      plugin_runtime_logs_deleted: 1,
      plugin_runtime_logs_retention_days: 30,
      login_logs_deleted: 1,
      login_logs_retention_days: 90,
      notification_log_deleted: 1,
      notification_log_retention_days: 180,
      idempotency_keys_deleted: 1,
      idempotency_keys_retention_days: 0,
      outbox_deleted: 1,
      outbox_retention_days: 7,
      api_request_logs_deleted: 1,
      api_request_logs_retention_days: 30,
      system_logs_deleted: 1,
      system_logs_retention_days: 90,
      supplier_calls_deleted: 1,
      supplier_calls_retention_days: 2,
    });
    expect((await platform.deps.db.models.NotificationLog.findAll({ where: { user_id: user.id } })).map((r) => r.entity_id)).toEqual([2]);
    const keys = (await platform.deps.db.models.TaskRun.findAll({ where: { workflow_id: ['wf-old', 'wf-new'] } })).map((r) => r.task_key).sort();
    expect(keys).toEqual(['new.done', 'old.running']);
    expect((await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { plugin_slug: 'gone' } })).map((r) => r.action)).toEqual(['new']);
    expect((await platform.deps.db.models.LoginLog.findAll({ where: { account: ['old-login', 'new-login'] } })).map((r) => r.account)).toEqual(['new-login']);
    expect((await platform.deps.db.models.IdempotencyKey.findAll({ where: { scope: 'client:1' } })).map((r) => r.key)).toEqual(['live-key']);
    const outbox = await platform.deps.db.read<{ key: string }>("SELECT key FROM outbox WHERE key LIKE 'retention:%' ORDER BY key");
    expect(outbox.map((r) => r.key)).toEqual(['retention:new-done', 'retention:old-pending']);
    expect((await platform.deps.db.read<{ action: string }>('SELECT action FROM supplier_calls')).map((r) => r.action)).toEqual(['new']);
  });

  it('makes the missing months ahead of the partitioned log tables (logs.partition_maintenance)', async () => {
    const now = new Date();
    const furthest = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1)).toISOString().slice(0, 7).replace('-', '');
    await platform.deps.db.sequelize.query(`ALTER TABLE api_request_logs DETACH PARTITION api_request_logs_p${furthest}; DROP TABLE api_request_logs_p${furthest}`);
    const res = await platform.api.post(`${BASE}/logs.partition_maintenance/trigger`, { token });
    expect(res.body.code, res.body.message).toBe(0);
    const run = await runOf(res.body.data.workflow_id);
    expect(run.status).toBe('succeeded');
    expect(run.summary).toEqual({ api_request_logs_partitions_created: 1, plugin_runtime_logs_partitions_created: 0 });
    const made = await platform.deps.db.read<{ name: string }>(`SELECT name FROM log_partitions('api_request_logs') WHERE name = $1`, [`api_request_logs_p${furthest}`]);
    expect(made).toHaveLength(1);
  });
});

describe('plugin task keys', () => {
  const INSTALL = '/api/v2/admin/integration-plugins';

  it('refuse installing a plugin whose task key is a built-in task or an enabled plugin task', async () => {
    const dup = (slug: string, key: string) =>
      fixtureManifest('addons', slug, {
        info: { extra: { scheduled_tasks: [{ key, title: '重复', triggers: [{ type: 'heartbeats', every: 1 }], handle: 'probe.ok', timeout: 10, lockTtlSeconds: 70 }] } },
      });
    probes.writePlugin('addons', 'dup_builtin', dup('dup_builtin', 'logs.retention_cleanup'));
    probes.writePlugin('addons', 'dup_enabled', dup('dup_enabled', 'probe.every'));
    await platform.api.post(`${INSTALL}/scan`, { token });
    const builtin = await platform.api.post(`${INSTALL}/addons/dup_builtin/install`, { token });
    expectError(builtin, 42200, 422);
    expect(builtin.body.data.errors['info.extra.scheduled_tasks[0].key']).toEqual(['任务 key（logs.retention_cleanup）已被内置任务使用']);
    const enabled = await platform.api.post(`${INSTALL}/addons/dup_enabled/install`, { token });
    expectError(enabled, 42200, 422);
    expect(enabled.body.message).toBe('插件安装失败：任务 key（probe.every）已被已启用的插件 task_probe 使用');
  });

  it('refuse enabling a second plugin with the same task key (40900), keeping the first', async () => {
    const twin = (slug: string) =>
      fixtureManifest('addons', slug, {
        info: { extra: { scheduled_tasks: [{ key: 'shared.key', title: '共用', triggers: [{ type: 'heartbeats', every: 4 }], handle: 'probe.ok', timeout: 10, lockTtlSeconds: 70 }] } },
      });
    probes.writePlugin('addons', 'twin_a', twin('twin_a'));
    probes.writePlugin('addons', 'twin_b', twin('twin_b'));
    await platform.api.post(`${INSTALL}/scan`, { token });
    const a = (await platform.api.post(`${INSTALL}/addons/twin_a/install`, { token })).body.data.id as number;
    const b = (await platform.api.post(`${INSTALL}/addons/twin_b/install`, { token })).body.data.id as number;
    expect((await platform.api.post(`${INSTALL}/${a}/enable`, { token })).body.code).toBe(0);
    const refused = await platform.api.post(`${INSTALL}/${b}/enable`, { token });
    expectError(refused, 40900, 409);
    expect(refused.body.message).toBe('任务 key（shared.key）已被已启用的插件 twin_a 使用，无法启用');
    expect((await platform.deps.db.models.Plugin.findByPk(b))?.status).toBe('installed');
  });
});
