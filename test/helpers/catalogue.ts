import { expect } from 'vitest';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin } from '../../domain/plugins/plugin-lifecycle.js';
import type { TestPlatform } from './platform.js';

/** Installs (and by default enables) a fixture plugin of the platform's PLUGINS_DIR; returns its id. */
export async function installFixturePlugin(platform: TestPlatform, domain: 'upstream', slug: string, options: { enable?: boolean } = {}): Promise<number> {
  const plugin = await installPlugin(platform.deps, domain, slug);
  if (options.enable !== false) await enablePlugin(platform.deps, plugin.id);
  return plugin.id;
}

/** A tiny catalogue builder over the admin API: asserts success and returns `data`. */
export function catalogueAdmin(platform: TestPlatform, token: () => Promise<string>) {
  const call = async (method: 'get' | 'post' | 'put' | 'del', path: string, body?: unknown) => {
    const res = await platform.api[method](path, { token: await token(), ...(body === undefined ? {} : { body }) });
    expect(res.body.code, `${method} ${path}: ${res.body.message} ${JSON.stringify(res.body.data)}`).toBe(0);
    return res.body.data;
  };
  return {
    call,
    menu: (body: Record<string, unknown>) => call('post', '/api/v2/admin/product-menus', { name: '菜单', product_type: 'cloud_server', ...body }),
    group: (menuId: number, body: Record<string, unknown> = {}) => call('post', '/api/v2/admin/product-groups', { name: '分组', first_product_group_id: menuId, ...body }),
    category: (groupId: number, body: Record<string, unknown> = {}) => call('post', '/api/v2/admin/product-categories', { name: '分类', second_product_group_id: groupId, ...body }),
    product: (body: Record<string, unknown>) => call('post', '/api/v2/admin/products', { name: '商品', pricing: { monthly: '10.00' }, ...body }),
  };
}

/** The directory placement of every product under a first-level menu, by id. */
export async function productPlacements(platform: TestPlatform, menuId: number) {
  const [rows] = await platform.deps.db.sequelize.query(
    `SELECT id, first_product_group_id, second_product_group_id, product_group_id, product_type, service_type_code FROM products WHERE first_product_group_id = ${Number(menuId)} ORDER BY id`,
  );
  return rows as Array<Record<string, unknown>>;
}

/** The catalogue audit entries of one entity, newest first, through the admin API. */
export async function catalogueAuditOf(platform: TestPlatform, token: string, entityType: string, entityId: number) {
  const res = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: entityType, entity_id: entityId } });
  expect(res.body.code).toBe(0);
  return res.body.data.list as Array<Record<string, any>>;
}
