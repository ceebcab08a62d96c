import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_REVEALS_PER_HOUR } from '../../../../domain/services/reveal-password.js';
import { expectError } from '../../../helpers/http.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;
let client: TestClient;

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
});
afterAll(() => platform?.close());

const base = '/api/v2/client/services';

async function events(serviceId: number, kind: string) {
  return platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: serviceId, kind }, order: [['id', 'ASC']] });
}

describe('client service list and detail', () => {
  it('answers every field of the service instance table, with the real provider and plugin keys of a bound service', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, {
      userId: client.id,
      productId: platform.productId,
      hostId,
      password: 'Secret-Pass-2026',
      config: { os: { value: 1010701, label: '操作系统：CentOS 7.9 64位' } },
    });
    const res = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(res.body.data).toMatchObject({
      id,
      product_type: 'cloud_server',
      product_type_label: '云服务器',
      console_template: 'compute',
      provider_key: 'upstream_finance_api',
      plugin_key: 'upstream_finance',
      capabilities: ['runtime', 'power', 'vnc', 'reinstall', 'reset_password', 'traffic_packages', 'network', 'security', 'monitoring'],
      upstream: { host_id: hostId },
      actions: { power: true, module_status: true },
      has_password: true,
      status: 'active',
      status_label: '运行中',
      billing_period: 'monthly',
      price: '70.80',
      currency: 'CNY',
      auto_renew: false,
      config: ['操作系统：CentOS 7.9 64位'],
      provisioning: { stage: '', failure_reason: null },
    });
    expect(res.body.data.next_due_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.raw).not.toContain('Secret-Pass-2026');
    expect(res.body.data).not.toHaveProperty('password');
  });

  it('shows a service without an upstream binding with host_id 0, a read-only console and every action false', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId });
    const res = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(res.body.data).toMatchObject({
      upstream: { host_id: 0 },
      capabilities: [],
      actions: { power: false, module_status: false },
      provider_key: null,
      plugin_key: null,
      has_password: false,
    });
    expectError(await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'reboot' } }), 40943, 409);
    expectError(await platform.api.post(`${base}/${id}/vnc`, { token: client.token }), 40943, 409);
    expect(await events(id, 'console')).toHaveLength(0);
  });

  it('keeps the actions off while the service is not running', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, status: 'suspended' });
    const res = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(res.body.data.capabilities).toContain('power');
    expect(res.body.data.actions).toEqual({ power: false, module_status: false });
    expectError(await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'on' } }), 40944, 409);
  });

  it('lists only the caller’s services, filtered and sorted through the whitelist', async () => {
    const other = await registerClient(platform);
    const mine = await createService(platform, { userId: client.id, productId: platform.productId, status: 'failed' });
    const theirs = await createService(platform, { userId: other.id, productId: platform.productId });
    const list = await platform.api.get(base, { token: client.token, query: { status: 'failed' } });
    expect(list.body.data.list.map((s: { id: number }) => s.id)).toEqual([mine]);
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(Object.keys(list.body.data.list[0]).length).toBeLessThanOrEqual(20);
    const all = await platform.api.get(base, { token: client.token, query: { sort: 'next_due_at', page_size: 100 } });
    expect(all.body.data.list.map((s: { id: number }) => s.id)).not.toContain(theirs);
    expectError(await platform.api.get(`${base}/${theirs}`, { token: client.token }), 40400, 404);
    expectError(await platform.api.get(base, { token: client.token, query: { sort: 'password' } }), 42200, 422);
    expectError(await platform.api.get(base, { token: client.token, query: { limit: 5 } }), 42200, 422);
    expectError(await platform.api.get(base, { token: client.token, query: { product_type: 'vps' } }), 42200, 422);
  });
});

describe('password reveal', () => {
  it('returns the stored password only through the logged reveal, and refuses others’ services', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, password: 'Stored-Pass-77' });
    const res = await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token });
    expect(res.body.data).toEqual({ service_id: id, username: 'root', password: 'Stored-Pass-77', source: 'local' });
    const logged = await events(id, 'credential');
    expect(logged.map((e) => [e.stage, e.status, e.operator_type, e.operator_id])).toEqual([['reveal', 'succeeded', 'user', client.id]]);
    expect(logged[0]?.detail).toMatchObject({ ip: '127.0.0.1' });
    expect(JSON.stringify(logged.map((e) => e.toJSON()))).not.toContain('Stored-Pass-77');
    const other = await registerClient(platform);
    expectError(await platform.api.post(`${base}/${id}/password/reveal`, { token: other.token }), 40400, 404);
  });

  it('reads a bound host’s password upstream when none is stored, and rate-limits reveals per service', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const res = await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token });
    expect(res.body.data).toMatchObject({ source: 'upstream', password: `Pw-${hostId}-sandbox!` });
    const logs = await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { action: 'upstream.host_credentials' } });
    expect(logs.length).toBeGreaterThan(0);
    for (const log of logs) expect(`${JSON.stringify(log.response_summary)}`).not.toContain(`Pw-${hostId}-sandbox!`);
    for (let i = 1; i < PASSWORD_REVEALS_PER_HOUR; i += 1) {
      expect((await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token })).body.code).toBe(0);
    }
    expectError(await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token }), 42900, 429);
    const refused = (await events(id, 'credential')).filter((e) => e.status === 'failed');
    expect(refused).toHaveLength(1);
  });

  it('answers 40400 when there is no password to reveal', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId });
    expectError(await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token }), 40400, 404);
  });
});

describe('console actions through the upstream', () => {
  it('runs power actions upstream once each and records them as service events', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    for (const action of ['off', 'on', 'hard_reboot']) {
      const res = await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action } });
      expect(res.body.data).toMatchObject({ service_id: id, action, done: true });
    }
    const actions = platform.sandbox.control.ledger().hostActions;
    expect([actions[`${hostId}:off`], actions[`${hostId}:on`], actions[`${hostId}:hard_reboot`]]).toEqual([1, 1, 1]);
    expect((await events(id, 'console')).map((e) => [e.stage, e.status])).toEqual([
      ['power_off', 'succeeded'],
      ['power_on', 'succeeded'],
      ['hard_reboot', 'succeeded'],
    ]);
    expectError(await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'explode' } }), 42200, 422);
  });

  it('answers a one-time console token and our console page, never a password or an upstream URL, without asking the upstream', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const res = await platform.api.post(`${base}/${id}/vnc`, { token: client.token });
    expect(res.body.data).toEqual({
      service_id: id,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      console_url: `${platform.baseUrl}/console/vnc?token=${res.body.data.token}`,
      expires_in: 60,
      expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(res.raw).not.toMatch(/pass|\/vnc\/console\?host/i);
    expect(platform.sandbox.control.ledger().hostActions[`${hostId}:vnc`]).toBeUndefined();
    const other = await registerClient(platform);
    expectError(await platform.api.post(`${base}/${id}/vnc`, { token: other.token }), 40400, 404);
  });

  it('reinstalls with an OS of the product, keeps the new password sealed and never answers it', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const bad = await platform.api.post(`${base}/${id}/reinstall`, { token: client.token, body: { os_id: 42 } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['os_id']);
    const res = await platform.api.post(`${base}/${id}/reinstall`, { token: client.token, body: { os_id: 1010705, password: 'Reinstall2026x' } });
    expect(res.body.data).toMatchObject({ service_id: id, os_id: 1010705, done: true, password_generated: false });
    expect(res.raw).not.toContain('Reinstall2026x');
    expect(platform.sandbox.control.host(hostId)?.os).toMatch(/^Windows Server 2019/);
    const row = await platform.deps.db.models.Service.findByPk(id);
    expect(row?.password_sealed).not.toContain('Reinstall2026x');
    expect(platform.deps.secretBox.open(row?.password_sealed ?? '')).toBe('Reinstall2026x');
    const revealed = await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token });
    expect(revealed.body.data.password).toBe('Reinstall2026x');
    expect(platform.sandbox.control.ledger().hostActions[`${hostId}:reinstall`]).toBe(1);
  });

  it('resets the password upstream and stores it sealed; a bad password changes nothing', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, password: 'Old-Pass-2025' });
    const bad = await platform.api.post(`${base}/${id}/reset-password`, { token: client.token, body: { password: 'short' } });
    expectError(bad, 42200, 422);
    expect(platform.sandbox.control.ledger().hostActions[`${hostId}:crack_pass`]).toBeUndefined();
    const res = await platform.api.post(`${base}/${id}/reset-password`, { token: client.token, body: { password: 'NewPass2026x' } });
    expect(res.body.data).toEqual({ service_id: id, done: true });
    expect(res.raw).not.toContain('NewPass2026x');
    const revealed = await platform.api.post(`${base}/${id}/password/reveal`, { token: client.token });
    expect(revealed.body.data.password).toBe('NewPass2026x');
    expect(platform.sandbox.control.ledger().hostActions[`${hostId}:crack_pass`]).toBe(1);
    const logs = await platform.deps.db.models.PluginRuntimeLog.findAll({ where: { action: 'upstream.host_action' } });
    for (const log of logs) expect(JSON.stringify(log.toJSON())).not.toMatch(/NewPass2026x|Reinstall2026x/);
    const history = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: id } });
    expect(JSON.stringify(history.map((e) => e.toJSON()))).not.toContain('NewPass2026x');
  });

  it('reads the live state upstream', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const res = await platform.api.get(`${base}/${id}/runtime`, { token: client.token });
    expect(res.body.data).toMatchObject({ service_id: id, upstream_status: 'active', power_status: 'on', traffic: { limit_gb: 1000, extra_gb: 0 } });
  });

  it('maps an upstream failure to a Chinese message and records the failed action', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    platform.sandbox.control.failNext(1, 'maintenance', { path: '/provision/default' });
    const res = await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'reboot' } });
    expectError(res, 50300, 503);
    expect((await events(id, 'console')).map((e) => [e.stage, e.status])).toEqual([['reboot', 'failed']]);
  });
});

describe('auto-renew switch', () => {
  it('turns auto-renew on and off, logs the change, and refuses it for one-time services', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId });
    expect((await platform.api.put(`${base}/${id}/auto-renew`, { token: client.token, body: { enabled: true } })).body.data).toEqual({ service_id: id, auto_renew: true });
    expect((await platform.deps.db.models.Service.findByPk(id))?.auto_renew).toBe(true);
    expect((await platform.api.put(`${base}/${id}/auto-renew`, { token: client.token, body: { enabled: false } })).body.data.auto_renew).toBe(false);
    expect((await events(id, 'settings')).map((e) => e.message)).toEqual(['已开启自动续费', '已关闭自动续费']);
    expectError(await platform.api.put(`${base}/${id}/auto-renew`, { token: client.token, body: { enabled: 'yes' } }), 42200, 422);
    const onetime = await createService(platform, { userId: client.id, productId: platform.productId, billingPeriod: 'onetime', nextDueAt: null });
    expectError(await platform.api.put(`${base}/${onetime}/auto-renew`, { token: client.token, body: { enabled: true } }), 40942, 409);
  });
});
