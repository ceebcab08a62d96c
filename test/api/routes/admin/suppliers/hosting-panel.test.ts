import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPlugin } from '../../../../../domain/plugins/plugin-install.js';
import { createPluginsRoot, fixtureManifest } from '../../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../../helpers/platform.js';

let platform: TestPlatform;
const root = createPluginsRoot();

beforeAll(async () => {
  root.write('upstream', 'panel_fixture', fixtureManifest('upstream', 'panel_fixture', { info: { extra: { provider_key: 'hosting_panel_api' } } }));
  root.write('upstream', 'finance_fixture', fixtureManifest('upstream', 'finance_fixture', { info: { extra: { provider_key: 'upstream_finance_api' } } }));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: root.root } });
});
afterAll(async () => {
  await platform?.close();
  root.cleanup();
});

describe('hosting panel suppliers', () => {
  it('bind to the installed plugin that declares hosting_panel_api, and never to a finance plugin', async () => {
    const token = await platform.rootToken();
    const panel = await installPlugin(platform.deps, 'upstream', 'panel_fixture');
    const finance = await installPlugin(platform.deps, 'upstream', 'finance_fixture');
    const body = { code: 'panel-a', name: '面板供应商', interface_type: 'hosting_panel_api', base_url: 'http://127.0.0.1:9', account: 'a', api_key: 'panel-key-000001' };
    const res = await platform.api.post('/api/v2/admin/suppliers', { token, body });
    expect(res.body.data).toMatchObject({ interface_type: 'hosting_panel_api', plugin_id: panel.id });
    const wrong = await platform.api.post('/api/v2/admin/suppliers', { token, body: { ...body, code: 'panel-b', plugin_id: finance.id } });
    expect(wrong.body.code).toBe(42200);
    expect(Object.keys(wrong.body.data.errors)).toEqual(['plugin_id']);
  });
});
