import { SYSTEM_ACTOR } from '../../../../lib/actor.js';
import { existsSync } from 'node:fs';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginBinding } from '../../../../domain/plugins/plugin-bindings.js';
import { registerPluginReference, unregisterPluginReference } from '../../../../plugins/runtime/references.js';
import { type ApiResponse, expectError, type RequestOptions } from '../../../helpers/http.js';
import { createPluginsRoot, fixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const BASE = '/api/v2/admin/integration-plugins';
const SECRETS = ['sk-api-SECRET-0001', 'sk-api-SECRET-0002', 'smtp-pass-ALPHA-77', 'smtp-pass-BRAVO-88'];
for (const secret of SECRETS) registerKnownSecret(secret);
const fixtures = createPluginsRoot();
const rawBodies: string[] = [];
let platform: TestPlatform;
let token: string;

async function call(method: 'get' | 'post' | 'put' | 'del', path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const res = await platform.api[method](path, { token, ...options });
  rawBodies.push(res.raw);
  return res;
}

const payConfig = {
  app_id: { title: '应用编号', type: 'text', required: true, rules: { max: 16 } },
  api_secret: { title: '接口密钥', type: 'password', required: true },
  mode: { title: '模式', type: 'select', options: [{ label: '正式', value: 'live' }, { label: '沙箱', value: 'sandbox' }], default: 'live' },
  sandbox_url: { title: '沙箱地址', type: 'url', required: true, visible_when: { field: 'mode', operator: 'eq', value: 'sandbox' } },
  tip: { type: 'notice', value: '请先在网关开通接口' },
};

beforeAll(async () => {
  fixtures.write('payment', 'pay_ok', fixtureManifest('payment', 'pay_ok', { config: payConfig }));
  fixtures.write('payment', 'demo_hidden', fixtureManifest('payment', 'demo_hidden'));
  fixtures.write('sms', 'bad_sms', fixtureManifest('sms', 'bad_sms', { config: { body: { title: '正文', type: 'rich_text' } } }));
  fixtures.write('sms', 'plain_sms', fixtureManifest('sms', 'plain_sms'));
  fixtures.write(
    'mail',
    'smtp_multi',
    fixtureManifest('mail', 'smtp_multi', { config: { accounts: { title: '发信账号', type: 'json', secret_keys: ['password'], required: true } } }),
  );
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

async function installed(domain: string, slug: string): Promise<number> {
  const res = await call('post', `${BASE}/${domain}/${slug}/install`);
  expect(res.body.code).toBe(0);
  return res.body.data.id as number;
}

describe('scan, list and install', () => {
  it('lists recognised plugins without demo ones and filters by domain and status', async () => {
    const scan = await call('post', `${BASE}/scan`);
    expect(scan.body.data).toMatchObject({ found: 4, recognised: 4, installed: 0 });
    const list = await call('get', BASE);
    expect(list.body.data.total).toBe(4);
    expect(list.body.data.list.map((p: { slug: string }) => p.slug)).toEqual(['pay_ok', 'smtp_multi', 'bad_sms', 'plain_sms']);
    expect(list.body.data.list[0]).toMatchObject({ id: null, status: 'recognised', name: '测试插件 pay_ok' });
    expect(list.raw).not.toContain('demo_hidden');
    const sms = await call('get', BASE, { query: { domain: 'sms' } });
    expect(sms.body.data.total).toBe(2);
    expectError(await call('get', BASE, { query: { status: 'gone' } }), 42200, 422);
  });

  it('installs, refuses a second install, a demo plugin and a bad declaration', async () => {
    const res = await call('post', `${BASE}/payment/pay_ok/install`);
    expect(res.body.data).toMatchObject({ slug: 'pay_ok', status: 'installed', has_secret_values: false });
    expect(res.body.data.config_fields.find((f: { key: string }) => f.key === 'mode')).toMatchObject({ value: 'live', options: { live: '正式', sandbox: '沙箱' } });
    expectError(await call('post', `${BASE}/payment/pay_ok/install`), 40900, 409);
    expectError(await call('post', `${BASE}/payment/demo_hidden/install`), 40400, 404);
    expectError(await call('post', `${BASE}/payment/missing/install`), 40400, 404);
    expectError(await call('post', `${BASE}/nowhere/pay_ok/install`), 42200, 422);
    const bad = await call('post', `${BASE}/sms/bad_sms/install`);
    expectError(bad, 42200, 422);
    expect(bad.body.message).toBe('插件安装失败：配置项 body 使用了禁止的类型 rich_text');
    expect(bad.body.data.errors['config.body.type']).toHaveLength(1);
    const list = await call('get', BASE, { query: { status: 'installed' } });
    expect(list.body.data.list.map((p: { slug: string }) => p.slug)).toEqual(['pay_ok']);
  });
});

describe('configure and lifecycle', () => {
  let id: number;
  beforeAll(async () => {
    id = (await call('get', BASE, { query: { status: 'installed' } })).body.data.list[0].id;
  });

  it('refuses to enable before required config, with the fields in data.errors', async () => {
    const res = await call('post', `${BASE}/${id}/enable`);
    expectError(res, 42200, 422);
    expect(res.body.data.errors).toEqual({ app_id: ['请填写应用编号'], api_secret: ['请填写接口密钥'] });
  });

  it('validates config against the manifest', async () => {
    const res = await call('put', `${BASE}/${id}/config`, { body: { config: { app_id: 'x'.repeat(17), api_secret: 's', mode: 'sandbox' } } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors).toEqual({ app_id: ['应用编号最多 16 个字符'] });
    const hidden = await call('put', `${BASE}/${id}/config`, { body: { config: { app_id: 'A1', api_secret: 's', mode: 'sandbox' } } });
    expect(hidden.body.data.errors).toEqual({ sandbox_url: ['请填写沙箱地址'] });
    expectError(await call('put', `${BASE}/${id}/config`, { body: {} }), 42200, 422);
  });

  it('stores secrets encrypted, never returns them and keeps them on empty submissions', async () => {
    const saved = await call('put', `${BASE}/${id}/config`, { body: { config: { app_id: 'APP1', api_secret: SECRETS[0], tip: 'ignored' } } });
    expect(saved.body.code).toBe(0);
    expect(saved.body.data.has_secret_values).toBe(true);
    const secretField = saved.body.data.config_fields.find((f: { key: string }) => f.key === 'api_secret');
    expect(secretField).toMatchObject({ secret: true, has_value: true, value: '' });
    const [rows] = await platform.deps.db.sequelize.query(`SELECT config::text AS config, secrets::text AS secrets FROM plugins WHERE id = ${id}`);
    const row = rows[0] as { config: string; secrets: string };
    expect(row.secrets).toMatch(/"api_secret": "v1:/);
    expect(row.secrets + row.config).not.toContain(SECRETS[0]);
    expect(JSON.parse(row.config)).toEqual({ app_id: 'APP1', mode: 'live' });
    const before = JSON.parse(row.secrets) as Record<string, string>;
    await call('put', `${BASE}/${id}/config`, { body: { config: { app_id: 'APP2', api_secret: '' } } });
    const after = await platform.deps.db.models.Plugin.findByPk(id);
    expect(after?.secrets).toEqual(before);
    expect(after?.config.app_id).toBe('APP2');
    const detail = await call('get', `${BASE}/${id}`);
    expect(detail.body.data).toMatchObject({ status: 'installed', has_secret_values: true });
    expect(detail.body.data.config_fields.find((f: { key: string }) => f.key === 'tip')).toMatchObject({ type: 'notice', value: '请先在网关开通接口', has_value: false });
  });

  it('moves through enable and disable and refuses illegal transitions', async () => {
    expect((await call('post', `${BASE}/${id}/enable`)).body.data.status).toBe('enabled');
    expectError(await call('post', `${BASE}/${id}/enable`), 40900, 409);
    const configured = await call('put', `${BASE}/${id}/config`, { body: { config: { app_id: 'APP3' } } });
    expect(configured.body.data.status).toBe('enabled');
    expect((await call('post', `${BASE}/${id}/disable`)).body.data.status).toBe('disabled');
    expectError(await call('post', `${BASE}/${id}/disable`), 40900, 409);
    expect((await call('post', `${BASE}/${id}/enable`)).body.data.status).toBe('enabled');
    const plain = await installed('sms', 'plain_sms');
    expectError(await call('post', `${BASE}/${plain}/disable`), 40900, 409);
    expectError(await call('post', `${BASE}/999999/enable`), 40400, 404);
  });

  it('runs the health check and records it in the runtime log', async () => {
    await call('put', `${BASE}/${id}/config`, { body: { config: { api_secret: SECRETS[1] } } });
    const res = await call('post', `${BASE}/${id}/health-check`);
    expect(res.body).toMatchObject({ code: 0, message: '连接正常', data: { success: true, status: 'success' } });
    const log = await platform.deps.db.models.PluginRuntimeLog.findByPk(res.body.data.log_id);
    expect(log).toMatchObject({ plugin_id: id, action: 'health_check', status: 'success', actor_type: 'admin' });
    expectError(await call('post', `${BASE}/999999/health-check`), 40400, 404);
  });
});

describe('multi-account SMTP config', () => {
  it('previews masked passwords and keeps them by index', async () => {
    const id = await installed('mail', 'smtp_multi');
    const accounts = [
      { host: 'smtp.a.example', user: 'a', password: SECRETS[2] },
      { host: 'smtp.b.example', user: 'b', password: SECRETS[3] },
    ];
    const saved = await call('put', `${BASE}/${id}/config`, { body: { config: { accounts } } });
    const field = saved.body.data.config_fields[0];
    expect(field).toMatchObject({ key: 'accounts', type: 'json', has_value: true, secret_keys: ['password'] });
    const preview = JSON.parse(field.value) as Array<Record<string, unknown>>;
    expect(preview.map((a) => a.has_password)).toEqual([true, true]);
    preview[1] = { ...preview[1], host: 'smtp.c.example' };
    await call('put', `${BASE}/${id}/config`, { body: { config: { accounts: JSON.stringify(preview) } } });
    const res = await call('post', `${BASE}/${id}/enable`);
    expect(res.body.data.status).toBe('enabled');
    const { invokePlugin } = await import('../../../../plugins/runtime/invoke.js');
    const out = await invokePlugin(platform.deps, { domain: 'mail', pluginId: id, action: 'config', actor: SYSTEM_ACTOR });
    expect((out.data.config as { accounts: unknown }).accounts).toEqual([
      { host: 'smtp.a.example', user: 'a', password: SECRETS[2] },
      { host: 'smtp.c.example', user: 'b', password: SECRETS[3] },
    ]);
    const log = await platform.deps.db.models.PluginRuntimeLog.findByPk(out.logId ?? 0);
    expect(JSON.stringify(log?.toJSON())).not.toMatch(/smtp-pass/);
  });
});

describe('uninstall', () => {
  it('refuses to uninstall a referenced plugin, naming the references, and force-detaches them', async () => {
    const pay = (await call('get', BASE, { query: { domain: 'payment', status: 'enabled' } })).body.data.list[0].id;
    await createPluginBinding(platform.deps, { plugin_id: pay, binding_type: 'default', scene: 'recharge' });
    const detached: number[] = [];
    registerPluginReference({
      name: 'test_payments',
      label: '支付记录',
      count: async (_deps, plugin) => (plugin.slug === 'pay_ok' && detached.length === 0 ? 2 : 0),
      detach: async (_deps, plugin) => {
        detached.push(plugin.id);
      },
    });
    try {
      const refused = await call('del', `${BASE}/${pay}`);
      expectError(refused, 40901, 409);
      expect(refused.body.message).toBe('插件仍被业务数据引用：插件绑定 1 条、支付记录 2 条；确认卸载请使用 force=1 强制卸载');
      expect(refused.body.data.references).toEqual([
        { name: 'plugin_bindings', label: '插件绑定', count: 1 },
        { name: 'test_payments', label: '支付记录', count: 2 },
      ]);
      expectError(await call('del', `${BASE}/${pay}`, { query: { force: 'maybe' } }), 42200, 422);
      const forced = await call('del', `${BASE}/${pay}`, { query: { force: 1 } });
      expect(forced.body.data).toMatchObject({ id: pay, slug: 'pay_ok' });
      expect(detached).toEqual([pay]);
      expect(await platform.deps.db.models.PluginBinding.count({ where: { plugin_id: pay } })).toBe(0);
      expectError(await call('get', `${BASE}/${pay}`), 40400, 404);
      expect(existsSync(join(fixtures.root, 'payment', 'pay_ok', 'manifest.json'))).toBe(true);
      const list = await call('get', BASE, { query: { domain: 'payment' } });
      expect(list.body.data.list[0]).toMatchObject({ slug: 'pay_ok', status: 'recognised', id: null });
      const logs = await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { plugin_slug: 'pay_ok' } });
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.every((l) => l.plugin_id === null)).toBe(true);
    } finally {
      unregisterPluginReference('test_payments');
    }
  });

  it('uninstalls an unreferenced plugin without force', async () => {
    const plain = (await call('get', BASE, { query: { domain: 'sms', status: 'installed' } })).body.data.list[0].id;
    expect((await call('del', `${BASE}/${plain}`)).body.data.detached).toEqual([]);
  });
});

describe('secrets in responses', () => {
  it('never appear in any response body of this file', () => {
    expect(rawBodies.length).toBeGreaterThan(30);
    for (const raw of rawBodies) for (const secret of SECRETS) expect(raw).not.toContain(secret);
  });
});
