import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import type { TestPlatform } from './platform.js';

export type UpstreamSandbox = Awaited<ReturnType<typeof startUpstreamFinanceSandbox>>;

/** The upstream finance sandbox, and the upstream_finance plugin installed and enabled against it. */
export async function startUpstreamForPlatform(platform: TestPlatform) {
  const sandbox = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  const plugin = await installPlugin(platform.deps, 'upstream', 'upstream_finance');
  await updatePluginConfig(platform.deps, plugin.id, {
    base_url: sandbox.baseUrl,
    account: SANDBOX_CREDENTIALS.upstream.username,
    api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
  });
  await enablePlugin(platform.deps, plugin.id);
  return { sandbox, pluginId: plugin.id };
}

/** A menu → group → category chain of the given type, made directly in the database. */
export async function createCategory(platform: TestPlatform, productType: string = 'cloud_server') {
  const { ProductMenu, ProductGroup, ProductCategory } = platform.deps.db.models;
  const menu = await ProductMenu.create({ code: `mnu_${Math.random().toString(36).slice(2, 10)}`, name: '云服务器', product_type: productType as 'cloud_server' });
  const group = await ProductGroup.create({ first_product_group_id: menu.id, name: '香港' });
  const category = await ProductCategory.create({ second_product_group_id: group.id, name: 'CN2 线路' });
  return { menu, group, category };
}
