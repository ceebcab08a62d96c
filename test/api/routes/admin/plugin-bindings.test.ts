import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { createPluginsRoot, fixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const BASE = '/api/v2/admin/integration-plugins';
const fixtures = createPluginsRoot();
let platform: TestPlatform;
let token: string;
let pay: number;
let plain: number;

beforeAll(async () => {
  fixtures.write('payment', 'pay_ok', fixtureManifest('payment', 'pay_ok'));
  fixtures.write('sms', 'plain_sms', fixtureManifest('sms', 'plain_sms'));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
  pay = (await platform.api.post(`${BASE}/payment/pay_ok/install`, { token })).body.data.id;
  plain = (await platform.api.post(`${BASE}/sms/plain_sms/install`, { token })).body.data.id;
  expect((await platform.api.post(`${BASE}/${pay}/enable`, { token })).body.data.status).toBe('enabled');
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

describe('plugin bindings', () => {
  it('binds only enabled plugins, one default per domain and scene', async () => {
    const call = (method: 'get' | 'post' | 'del', path: string, body?: Record<string, unknown>, query?: Record<string, string>) =>
      platform.api[method](path, { token, ...(body ? { body } : {}), ...(query ? { query } : {}) });
    const refused = await call('post', `${BASE}/bindings`, { plugin_id: plain, binding_type: 'default' });
    expectError(refused, 42200, 422);
    expect(await platform.deps.db.models.PluginBinding.count({ where: { plugin_id: plain } })).toBe(0);
    const created = await call('post', `${BASE}/bindings`, { plugin_id: pay, binding_type: 'default', scene: 'recharge' });
    expect(created.body.data).toMatchObject({ plugin_id: pay, domain: 'payment', binding_type: 'default', scene: 'recharge', binding_id: null, plugin_slug: 'pay_ok' });
    expectError(await call('post', `${BASE}/bindings`, { plugin_id: pay, binding_type: 'default', scene: 'recharge' }), 40900, 409);
    expectError(await call('post', `${BASE}/bindings`, { plugin_id: pay, binding_type: 'supplier' }), 42200, 422);
    const supplier = await call('post', `${BASE}/bindings`, { plugin_id: pay, binding_type: 'supplier', binding_id: 7 });
    expect(supplier.body.data).toMatchObject({ binding_type: 'supplier', binding_id: 7, scene: null });
    const list = await call('get', `${BASE}/bindings`, undefined, { domain: 'payment' });
    expect(list.body.data.total).toBe(2);
    expect((await call('del', `${BASE}/bindings/${supplier.body.data.id}`)).body.code).toBe(0);
    expect(await platform.deps.db.models.PluginBinding.count({ where: { plugin_id: pay } })).toBe(1);
    expectError(await call('del', `${BASE}/bindings/${supplier.body.data.id}`), 40400, 404);
  });
});
