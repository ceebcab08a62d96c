import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin, installFixturePlugin } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { createPluginsRoot, fixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { createService, type ServicesPlatform } from '../../../helpers/services.js';

/**
 * A plugin-driven upstream: it declares host actions and console tickets, a console schema with
 * three buttons and a status mapping, and answers `server.resolve_capability` by host: host 2
 * cannot answer (its upstream is down), any other host offers `power` and `network` (plus a name
 * we do not know).
 */
const ENTRY = `
export async function execute(input) {
  const host = Number(input.payload.host_id);
  switch (input.action) {
    case 'health_check':
      return { success: true, action: input.action, message: '连接正常', data: { ok: true } };
    case 'server.resolve_capability':
      if (host === 2) return { success: false, action: input.action, message: '插件暂时无法连接上游', data: { error_kind: 'transient', error_code: 'network_error' } };
      return { success: true, action: input.action, message: '完成', data: { capabilities: ['power', 'network', 'teleport'] } };
    case 'upstream.host_action':
      return { success: true, action: input.action, message: '完成', data: { host_id: host, action: input.payload.action, done: true } };
    default:
      return { success: false, action: input.action, message: '不支持的动作', data: { error_kind: 'permanent', error_code: 'unsupported_action' } };
  }
}
`;

const fixtures = createPluginsRoot();
let platform: TestPlatform;
let client: TestClient;
let servicesPlatform: ServicesPlatform;

beforeAll(async () => {
  fixtures.write(
    'upstream',
    'acme_console',
    fixtureManifest('upstream', 'acme_console', {
      info: {
        capabilities: ['host_detail', 'host_action', 'console_ticket', 'resolve_capability'],
        extra: {
          provider_key: 'acme_console_api',
          console_schema: {
            template: 'acme_panel',
            sections: [{ key: 'overview', title: '概览' }],
            actions: [
              { key: 'reboot', label: '重启', capability: 'power' },
              { key: 'console', label: '远程控制台', capability: 'vnc' },
              { key: 'ports', label: '端口转发', capability: 'network' },
              { key: 'broken', label: '无能力' },
            ],
          },
          status_mapping: { Active: '运行中', Suspended: '已暂停' },
        },
      },
    }),
    ENTRY,
  );
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  client = await registerClient(platform);
  const pluginId = await installFixturePlugin(platform, 'upstream', 'acme_console');
  const admin = catalogueAdmin(platform, () => platform.rootToken());
  const menu = await admin.menu({ name: '插件主机', product_type: 'other' });
  const product = await admin.product({ name: 'Acme 主机', first_product_group_id: menu.id, pricing: { monthly: '5' }, plugin_id: pluginId, upstream_product_id: '7' });
  const supplier = await platform.deps.db.models.Supplier.create({
    code: 'acme',
    name: 'Acme',
    interface_type: 'hosting_panel_api',
    plugin_id: pluginId,
    base_url: 'https://acme.example.com',
    account: 'acme',
    api_key_sealed: '',
  });
  servicesPlatform = Object.assign(platform, { supplierId: supplier.id, upstreamPluginId: pluginId, productId: product.id }) as unknown as ServicesPlatform;
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

const base = '/api/v2/client/services';

let nextHost = 100;

/** A service of type other on a host of the fixture plugin's supplier (host 2: the plugin cannot resolve). */
async function otherService(host?: 2): Promise<number> {
  const hostId = host ?? (nextHost += 1);
  const id = await createService(servicesPlatform, { userId: client.id, productId: servicesPlatform.productId, hostId, productType: 'other' });
  await platform.deps.db.models.Service.update(
    { console_template: null as unknown as string, provider_key: 'acme_console_api', plugin_key: 'acme_console', upstream_status: 'Active' },
    { where: { id } },
  );
  await platform.deps.db.models.ServiceUpstreamBinding.update({ provider_key: 'acme_console_api', upstream_product_id: '7' }, { where: { service_id: id } });
  return id;
}

async function resolveCalls(): Promise<number> {
  return platform.deps.db.models.PluginRuntimeLog.count({ where: { action: 'server.resolve_capability' } });
}

describe('plugin-driven console (type other)', () => {
  it('shows the plugin’s console schema with exactly the buttons of the capabilities the plugin resolves, and its status label', async () => {
    const id = await otherService();
    const detail = await platform.api.get(`${base}/${id}`, { token: client.token });
    expect(detail.body.data).toMatchObject({ product_type: 'other', capabilities: ['power'], actions: { power: true } });
    const res = await platform.api.get(`${base}/${id}/console`, { token: client.token });
    expect(res.body.data).toEqual({
      service_id: id,
      product_type: 'other',
      template: 'acme_panel',
      sections: [{ key: 'overview', title: '概览' }],
      actions: [{ key: 'reboot', label: '重启', capability: 'power' }],
      capabilities: ['power'],
      capabilities_resolved: true,
      read_only: false,
      status: 'active',
      status_label: '运行中',
      upstream_status: 'Active',
      upstream_status_label: '运行中',
    });
  });

  it('runs an offered action through the plugin and refuses every other one with 40947', async () => {
    const id = await otherService();
    const reboot = await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'reboot' } });
    expect(reboot.body.data).toMatchObject({ service_id: id, action: 'reboot', done: true });
    const before = await resolveCalls();
    const refused = [
      await platform.api.post(`${base}/${id}/reinstall`, { token: client.token, body: { os_id: 1 } }),
      await platform.api.post(`${base}/${id}/reset-password`, { token: client.token, body: { password: 'NewPass2026x' } }),
      await platform.api.post(`${base}/${id}/vnc`, { token: client.token }),
      await platform.api.get(`${base}/${id}/runtime`, { token: client.token }),
      // Offered by the plugin but not within what its manifest declares: still refused.
      await platform.api.get(`${base}/${id}/nat-rules`, { token: client.token }),
      await platform.api.get(`${base}/${id}/monitoring`, { token: client.token, query: { metric: 'cpu' } }),
    ];
    for (const res of refused) {
      expectError(res, 40947, 409);
      expect(res.body.message).toMatch(/不支持|未提供/);
    }
    // The reinstall, password, console and runtime refusals were the plugin's answer (asked each time).
    expect((await resolveCalls()) - before).toBeGreaterThanOrEqual(4);
    const events = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: id, kind: 'console' } });
    expect(events.map((e) => [e.stage, e.status])).toEqual([['reboot', 'succeeded']]);
  });

  it('offers nothing while the plugin cannot resolve capabilities, and answers an action with the plugin’s failure', async () => {
    const id = await otherService(2);
    expect((await platform.api.get(`${base}/${id}`, { token: client.token })).body.data).toMatchObject({ capabilities: [], actions: { power: false } });
    const res = await platform.api.get(`${base}/${id}/console`, { token: client.token });
    expect(res.body.data).toMatchObject({ capabilities: [], capabilities_resolved: false, actions: [], template: 'acme_panel' });
    const power = await platform.api.post(`${base}/${id}/power`, { token: client.token, body: { action: 'reboot' } });
    expectError(power, 50300, 503);
    expect(power.body.message).toBe('插件暂时无法连接上游');
  });

  it('answers 40400 for another user’s service', async () => {
    const id = await otherService();
    const other = await registerClient(platform);
    expectError(await platform.api.get(`${base}/${id}/console`, { token: other.token }), 40400, 404);
    expectError(await platform.api.post(`${base}/${id}/power`, { token: other.token, body: { action: 'reboot' } }), 40400, 404);
  });
});
