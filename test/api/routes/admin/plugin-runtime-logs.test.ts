import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../../../lib/actor.js';
import { invokePlugin } from '../../../../plugins/runtime/invoke.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { createPluginsRoot, fixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const BASE = '/api/v2/admin/integration-plugins';
const SECRET = 'sk-api-SECRET-0003';
registerKnownSecret(SECRET);
const fixtures = createPluginsRoot();
let platform: TestPlatform;
let token: string;
let pluginId: number;

beforeAll(async () => {
  fixtures.write('payment', 'pay_ok', fixtureManifest('payment', 'pay_ok', { config: { api_secret: { title: '接口密钥', type: 'password', required: true } } }));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
  const installed = await platform.api.post(`${BASE}/payment/pay_ok/install`, { token });
  pluginId = installed.body.data.id;
  await platform.api.put(`${BASE}/${pluginId}/config`, { token, body: { config: { api_secret: SECRET } } });
  const enabled = await platform.api.post(`${BASE}/${pluginId}/enable`, { token });
  expect(enabled.body.data.status).toBe('enabled');
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

describe('plugin runtime logs', () => {
  it('lists a health check with who ran it and shows its detail', async () => {
    const res = await platform.api.post(`${BASE}/${pluginId}/health-check`, { token });
    expect(res.body).toMatchObject({ code: 0, message: '连接正常', data: { success: true, status: 'success' } });
    const logs = await platform.api.get(`${BASE}/runtime-logs`, { token, query: { plugin_id: pluginId, action: 'health_check', status: 'success' } });
    expect(logs.body.data.total).toBe(1);
    expect(logs.body.data.list[0]).toMatchObject({ id: res.body.data.log_id, domain: 'payment', plugin_slug: 'pay_ok', actor_type: 'admin', action: 'health_check' });
    const detail = await platform.api.get(`${BASE}/runtime-logs/${res.body.data.log_id}`, { token });
    expect(detail.body.data.response_summary).toContain('连接正常');
    expect((await platform.api.get(`${BASE}/runtime-logs`, { token, query: { status: 'timeout' } })).body.data.total).toBe(0);
  });

  it('lists a failed run without the secret its error carried', async () => {
    const out = await invokePlugin(platform.deps, { domain: 'payment', pluginId, action: 'boom', actor: SYSTEM_ACTOR });
    expect(out).toMatchObject({ success: false, logId: expect.any(Number) });
    expect(out.status).not.toBe('success');
    const failed = await platform.api.get(`${BASE}/runtime-logs`, { token, query: { plugin_id: pluginId, action: 'boom' } });
    expect(failed.body.data.total).toBe(1);
    expect(failed.body.data.list[0]).toMatchObject({ id: out.logId, action: 'boom', actor_type: 'system', status: out.status });
    const detail = await platform.api.get(`${BASE}/runtime-logs/${failed.body.data.list[0].id}`, { token });
    expect(detail.raw).not.toContain(SECRET);
  });

  it('refuses an unknown status filter (42200) and answers 40400 for an unknown log', async () => {
    const bad = await platform.api.get(`${BASE}/runtime-logs`, { token, query: { status: 'odd' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['status']);
    expectError(await platform.api.get(`${BASE}/runtime-logs/999999`, { token }), 40400, 404);
  });
});
