import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ACTION_LIMITS } from '../../../../domain/services/console/action-limit.js';
import { parseDateTime, formatDateTime } from '../../../../lib/time.js';
import { expectError } from '../../../helpers/http.js';
import { eventually } from '../../../helpers/wait.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;

beforeAll(async () => {
  platform = await startServicesPlatform();
});
afterAll(() => platform?.close());

const base = '/api/v2/client/services';

async function consoleEvents(serviceId: number) {
  const rows = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: serviceId, kind: 'console' }, order: [['id', 'ASC']] });
  return rows.map((e) => [e.stage, e.status, e.operator_type, e.operator_id]);
}

/** A fresh client with an active service bound to a fresh sandbox host (console limits are per user). */
async function boundService(): Promise<{ client: TestClient; id: number; hostId: number }> {
  const client = await registerClient(platform);
  const hostId = takeHost(platform);
  const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
  return { client, id, hostId };
}

describe('console capabilities', () => {
  it('offers network, security and monitoring on a compute service whose plugin declares them', async () => {
    const { client, id } = await boundService();
    const res = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(res.body.data.capabilities).toEqual(['runtime', 'power', 'vnc', 'reinstall', 'reset_password', 'traffic_packages', 'network', 'security', 'monitoring']);
    const view = await platform.api.get(`${base}/${id}/console`, { token: client.token });
    expect(view.body.data).toMatchObject({ service_id: id, product_type: 'cloud_server', template: 'compute', sections: [], actions: [], capabilities_resolved: true, read_only: false });
  });

  it('leaves them out for a type that does not show them (cdn) and refuses the routes with 40947', async () => {
    const client = await registerClient(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), productType: 'cdn' });
    const res = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(res.body.data.capabilities).not.toContain('network');
    expect(res.body.data.capabilities).not.toContain('security');
    expect(res.body.data.capabilities).not.toContain('monitoring');
    expectError(await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token }), 40947, 409);
    expectError(await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu' } }), 40947, 409);
    expectError(await platform.api.get(`${base}/${id}/security-groups`, { token: client.token }), 40947, 409);
  });

  it('leaves network and security out when the plugin does not declare the NAT and security group modules', async () => {
    const plugin = await platform.deps.db.models.Plugin.findByPk(platform.upstreamPluginId);
    const manifest = plugin?.manifest as { info: { capabilities: string[] } };
    const original = structuredClone(manifest);
    manifest.info.capabilities = manifest.info.capabilities.filter((c) => c !== 'nat_rules' && c !== 'security_groups');
    await platform.deps.db.models.Plugin.update({ manifest: manifest as never }, { where: { id: platform.upstreamPluginId } });
    try {
      const { client, id } = await boundService();
      const res = await platform.api.get(`${base}/${id}`, { token: client.token });
      expect(res.body.data.capabilities).toContain('monitoring');
      expect(res.body.data.capabilities).not.toContain('network');
      expect(res.body.data.capabilities).not.toContain('security');
      expectError(await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } }), 40947, 409);
    } finally {
      await platform.deps.db.models.Plugin.update({ manifest: original as never }, { where: { id: platform.upstreamPluginId } });
    }
  });

  it('answers 40943 for a service without an upstream host and 40944 for one not running', async () => {
    const client = await registerClient(platform);
    const unbound = await createService(platform, { userId: client.id, productId: platform.productId });
    expectError(await platform.api.get(`${base}/${unbound}/nat-rules`, { token: client.token }), 40943, 409);
    const suspended = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), status: 'suspended' });
    expectError(await platform.api.post(`${base}/${suspended}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } }), 40944, 409);
  });
});

describe('NAT port forwarding', () => {
  it('adds a rule with an upstream-chosen port and one with an asked port, lists them live, deletes one, and logs each action', async () => {
    const { client, id, hostId } = await boundService();
    const empty = await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token });
    expect(empty.body.data).toEqual({ list: [], total: 0, page: 1, page_size: 20 });
    const limits = await platform.api.get(`${base}/${id}/nat-rules/limits`, { token: client.token });
    expect(limits.body.data).toEqual({ service_id: id, rule_count: 0, max_rules: 10, external_port_min: 20000, external_port_max: 29999 });

    const auto = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } });
    expect(auto.body.data).toEqual({ service_id: id, rule: { id: expect.any(Number), protocol: 'tcp', external_port: expect.any(Number), internal_port: 22 } });
    const asked = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'udp', internal_port: 53, external_port: 25053 } });
    expect(asked.body.data.rule).toMatchObject({ protocol: 'udp', external_port: 25053, internal_port: 53 });

    const list = await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token });
    expect(list.body.data).toEqual({ list: [auto.body.data.rule, asked.body.data.rule], total: 2, page: 1, page_size: 20 });
    // page_size is honoured: the upstream answers every rule, the page is cut here.
    const second = await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token, query: { page: 2, page_size: 1 } });
    expect(second.body.data).toEqual({ list: [asked.body.data.rule], total: 2, page: 2, page_size: 1 });
    expect((await platform.api.get(`${base}/${id}/nat-rules/limits`, { token: client.token })).body.data.rule_count).toBe(2);
    expect(platform.sandbox.control.ledger().moduleActions[`${hostId}:addNatRule`]).toBe(2);

    const removed = await platform.api.del(`${base}/${id}/nat-rules/${auto.body.data.rule.id}`, { token: client.token });
    expect(removed.body.data).toEqual({ service_id: id, rule_id: auto.body.data.rule.id, deleted: true });
    expect((await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token })).body.data.list).toEqual([asked.body.data.rule]);
    expect(await consoleEvents(id)).toEqual([
      ['nat_add', 'succeeded', 'user', client.id],
      ['nat_add', 'succeeded', 'user', client.id],
      ['nat_delete', 'succeeded', 'user', client.id],
    ]);
  });

  it('enforces the upstream limits with Chinese errors before calling it: port range, port taken, rule count', async () => {
    const { client, id, hostId } = await boundService();
    const outside = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 80, external_port: 8080 } });
    expectError(outside, 42200, 422);
    expect(outside.body.data.errors.external_port[0]).toContain('20000');
    await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 80, external_port: 26000 } });
    const taken = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 81, external_port: 26000 } });
    expectError(taken, 40951, 409);
    expect(taken.body.message).toContain('26000');
    for (let i = 1; i < 10; i += 1) {
      expect((await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 1000 + i } })).body.code).toBe(0);
    }
    const full = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 2000 } });
    expectError(full, 40950, 409);
    expect(full.body.message).toContain('10');
    expect(platform.sandbox.control.ledger().moduleActions[`${hostId}:addNatRule`]).toBe(10);
    expect((await consoleEvents(id)).filter(([, status]) => status === 'failed')).toHaveLength(3);
  });

  it('maps a port another host took upstream to 40951 with the plugin’s Chinese message', async () => {
    const first = await boundService();
    const second = await boundService();
    expect((await platform.api.post(`${base}/${first.id}/nat-rules`, { token: first.client.token, body: { protocol: 'tcp', internal_port: 22, external_port: 27000 } })).body.code).toBe(0);
    const res = await platform.api.post(`${base}/${second.id}/nat-rules`, { token: second.client.token, body: { protocol: 'tcp', internal_port: 22, external_port: 27000 } });
    expectError(res, 40951, 409);
    expect(res.body.message).toBe('上游外网端口已被占用，请换一个端口');
    expect(await consoleEvents(second.id)).toEqual([['nat_add', 'failed', 'user', second.client.id]]);
  });

  it('answers an upstream refusal with 40930 and an upstream outage with 50300, records both and changes nothing', async () => {
    const { client, id, hostId } = await boundService();
    platform.sandbox.control.failNext(1, 'refused', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } }), 40930, 409);
    platform.sandbox.control.failNext(1, 'html500', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } }), 50300, 503);
    platform.sandbox.control.failNext(1, 'maintenance', { path: '/provision/custom/content' });
    expectError(await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token }), 50300, 503);
    expect((await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token })).body.data.list).toEqual([]);
    expect(await consoleEvents(id)).toEqual([
      ['nat_add', 'failed', 'user', client.id],
      ['nat_add', 'failed', 'user', client.id],
    ]);
    const rule = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } });
    platform.sandbox.control.failNext(1, 'html500', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.del(`${base}/${id}/nat-rules/${rule.body.data.rule.id}`, { token: client.token }), 50300, 503);
    expect((await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token })).body.data.list).toHaveLength(1);
  });

  it('validates the body and never reaches the upstream with bad input', async () => {
    const { client, id, hostId } = await boundService();
    for (const body of [
      { protocol: 'icmp', internal_port: 22 },
      { protocol: 'tcp', internal_port: 0 },
      { protocol: 'tcp', internal_port: 70000 },
      { protocol: 'tcp', internal_port: '22' },
      { protocol: 'tcp', internal_port: 22, external_port: 1.5 },
      {},
    ]) {
      const res = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body });
      expectError(res, 42200, 422);
    }
    expectError(await platform.api.del(`${base}/${id}/nat-rules/abc`, { token: client.token }), 42200, 422);
    expect(platform.sandbox.control.ledger().moduleActions[`${hostId}:addNatRule`]).toBeUndefined();
  });

  it('answers 40400 for another user’s service and for a rule of another host, and sends nothing', async () => {
    const owner = await boundService();
    const other = await boundService();
    const rule = await platform.api.post(`${base}/${owner.id}/nat-rules`, { token: owner.client.token, body: { protocol: 'tcp', internal_port: 22 } });
    const ruleId = rule.body.data.rule.id as number;
    expectError(await platform.api.get(`${base}/${owner.id}/nat-rules`, { token: other.client.token }), 40400, 404);
    expectError(await platform.api.post(`${base}/${owner.id}/nat-rules`, { token: other.client.token, body: { protocol: 'tcp', internal_port: 22 } }), 40400, 404);
    expectError(await platform.api.del(`${base}/${owner.id}/nat-rules/${ruleId}`, { token: other.client.token }), 40400, 404);
    // The owner's rule id through the other user's own service: not one of that host's rules.
    expectError(await platform.api.del(`${base}/${other.id}/nat-rules/${ruleId}`, { token: other.client.token }), 40400, 404);
    expect(platform.sandbox.control.ledger().moduleActions[`${other.hostId}:delNatRule`]).toBeUndefined();
    expect((await platform.api.get(`${base}/${owner.id}/nat-rules`, { token: owner.client.token })).body.data.list).toHaveLength(1);
  });

  it('rate-limits a user’s NAT calls per minute with 42900, counting every call', async () => {
    const { client, id } = await boundService();
    expect((await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token })).body.code).toBe(0);
    const [counted] = await platform.deps.db.read<{ hits: number }>(`SELECT sum(hits)::int AS hits FROM client_action_hits WHERE user_id = $1 AND scope = 'network'`, [client.id]);
    expect(counted?.hits).toBe(1);
    // The limit used up in this minute and the next (the call may cross a minute boundary).
    await platform.deps.db.read(
      `INSERT INTO client_action_hits (user_id, scope, window_start, hits)
       SELECT $1, 'network', date_trunc('minute', now()) + make_interval(mins => m), $2 FROM generate_series(0, 1) AS m
       ON CONFLICT (user_id, scope, window_start) DO UPDATE SET hits = EXCLUDED.hits`,
      [client.id, CONSOLE_ACTION_LIMITS.network.perMinute],
    );
    const refused = await platform.api.post(`${base}/${id}/nat-rules`, { token: client.token, body: { protocol: 'tcp', internal_port: 22 } });
    expectError(refused, 42900, 429);
    expect(refused.body.message).toContain(String(CONSOLE_ACTION_LIMITS.network.perMinute));
    const other = await boundService();
    expect((await platform.api.get(`${base}/${other.id}/nat-rules`, { token: other.client.token })).body.code).toBe(0);
  });

  it('takes the per-minute limit from the console settings group', async () => {
    const { client, id } = await boundService();
    const token = await platform.rootToken();
    const saved = await platform.api.post('/api/v2/admin/settings', { token, body: { values: { 'console.monitoring_per_minute': 1 } } });
    expect(saved.body.code, saved.body.message).toBe(0);
    try {
      await platform.deps.db.read(
        `INSERT INTO client_action_hits (user_id, scope, window_start, hits)
         SELECT $1, 'monitoring', date_trunc('minute', now()) + make_interval(mins => m), 1 FROM generate_series(0, 1) AS m`,
        [client.id],
      );
      // Other processes see the new value once the settings notification arrives.
      const refused = await eventually(async () => {
        const res = await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu' } });
        return res.body.code === 42900 ? res : null;
      });
      expectError(refused, 42900, 429);
      expect(refused.body.message).toContain('每分钟最多 1 次');
      const bad = await platform.api.post('/api/v2/admin/settings', { token, body: { values: { 'console.monitoring_per_minute': 0 } } });
      expectError(bad, 42200, 422);
    } finally {
      await platform.api.post('/api/v2/admin/settings', { token, body: { values: { 'console.monitoring_per_minute': 60 } } });
    }
  });
});

describe('monitoring', () => {
  it('answers points of a metric within the range, at most limit, never before the activation', async () => {
    const { client, id } = await boundService();
    const activated = new Date(Date.now() - 3 * 3_600_000);
    await platform.deps.db.models.Service.update({ activated_at: activated }, { where: { id } });
    const from = formatDateTime(new Date(Date.now() - 6 * 3_600_000)) as string;
    const res = await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu', from, limit: 500 } });
    expect(res.body.data).toMatchObject({ service_id: id, metric: 'cpu', metric_label: 'CPU 使用率', unit: '%', limit: 500, activated_at: formatDateTime(activated) });
    const points = res.body.data.points as Array<{ time: string; value: number }>;
    expect(points.length).toBeGreaterThan(20);
    for (const p of points) {
      expect((parseDateTime(p.time) as Date).getTime()).toBeGreaterThanOrEqual(Math.floor(activated.getTime() / 1000) * 1000);
      expect(p.value).toBeGreaterThanOrEqual(0);
    }
    const few = await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'bandwidth_out', limit: 5 } });
    expect(few.body.data.points.length).toBeLessThanOrEqual(5);
    expect(few.body.data.unit).toBe('Kbps');
  });

  it('never shows a previous owner’s points of the same host', async () => {
    const hostId = takeHost(platform);
    const oldOwner = await registerClient(platform);
    const newOwner = await registerClient(platform);
    const oldService = await createService(platform, { userId: oldOwner.id, productId: platform.productId, hostId });
    await platform.deps.db.models.Service.update({ activated_at: new Date(Date.now() - 10 * 3_600_000) }, { where: { id: oldService } });
    const from = formatDateTime(new Date(Date.now() - 8 * 3_600_000)) as string;
    const old = await platform.api.get(`${base}/${oldService}/monitoring`, { token: oldOwner.token, query: { metric: 'memory', from, limit: 500 } });
    expect(old.body.data.points.length).toBeGreaterThan(50);
    await platform.deps.db.models.Service.update({ status: 'terminated' }, { where: { id: oldService } });
    await platform.deps.db.models.ServiceUpstreamBinding.destroy({ where: { service_id: oldService } });

    const newService = await createService(platform, { userId: newOwner.id, productId: platform.productId, hostId });
    const handedOver = new Date(Date.now() - 3_600_000);
    await platform.deps.db.models.Service.update({ activated_at: handedOver }, { where: { id: newService } });
    const res = await platform.api.get(`${base}/${newService}/monitoring`, { token: newOwner.token, query: { metric: 'memory', from, limit: 500 } });
    expect(res.body.data.from).toBe(formatDateTime(new Date(Math.ceil(handedOver.getTime() / 1000) * 1000)));
    const times = (res.body.data.points as Array<{ time: string }>).map((p) => (parseDateTime(p.time) as Date).getTime());
    expect(times.length).toBeGreaterThan(0);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(Math.floor(handedOver.getTime() / 1000) * 1000);
    expect(times.length).toBeLessThan(old.body.data.points.length);
  });

  it('answers no points for a range before the activation without asking the upstream', async () => {
    const { client, id } = await boundService();
    const res = await platform.api.get(`${base}/${id}/monitoring`, {
      token: client.token,
      query: { metric: 'disk_read', from: formatDateTime(new Date(Date.now() - 48 * 3_600_000)) as string, to: formatDateTime(new Date(Date.now() - 24 * 3_600_000)) as string },
    });
    expect(res.body.data.points).toEqual([]);
  });

  it('validates metric, times, range and limit', async () => {
    const { client, id } = await boundService();
    const now = Date.now();
    const bad: Array<Record<string, string | number>> = [
      {},
      { metric: 'gpu' },
      { metric: 'cpu', limit: 0 },
      { metric: 'cpu', limit: 501 },
      { metric: 'cpu', limit: '5x' },
      { metric: 'cpu', from: '2026-13-01 00:00:00' },
      { metric: 'cpu', from: 'yesterday' },
      { metric: 'cpu', from: formatDateTime(new Date(now)) as string, to: formatDateTime(new Date(now - 3_600_000)) as string },
      { metric: 'cpu', from: formatDateTime(new Date(now - 40 * 86_400_000)) as string, to: formatDateTime(new Date(now)) as string },
    ];
    for (const query of bad) expectError(await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query }), 42200, 422);
  });

  it('answers an upstream outage with 50300, another user’s service with 40400', async () => {
    const { client, id } = await boundService();
    await platform.deps.db.models.Service.update({ activated_at: new Date(Date.now() - 3 * 3_600_000) }, { where: { id } });
    platform.sandbox.control.failNext(1, 'html500', { path: '/provision/custom/content' });
    expectError(await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu' } }), 50300, 503);
    platform.sandbox.control.failNext(1, 'refused', { path: '/provision/custom/content' });
    expectError(await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu' } }), 40930, 409);
    const other = await registerClient(platform);
    expectError(await platform.api.get(`${base}/${id}/monitoring`, { token: other.token, query: { metric: 'cpu' } }), 40400, 404);
  });
});
