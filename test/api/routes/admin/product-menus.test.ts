import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_TYPES } from '../../../../db/models/catalogue.js';
import { catalogueAdmin, catalogueAuditOf, installFixturePlugin, productPlacements } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { createPluginsRoot, upstreamFixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const fixtures = createPluginsRoot();
let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;
let token: string;
let upstreamId: number;

beforeAll(async () => {
  fixtures.write('upstream', 'acme_cloud', upstreamFixtureManifest('acme_cloud'));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
  admin = catalogueAdmin(platform, () => platform.rootToken());
  upstreamId = await installFixturePlugin(platform, 'upstream', 'acme_cloud');
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

const productRows = (menuId: number) => productPlacements(platform, menuId);
const auditOf = (entityType: string, entityId: number) => catalogueAuditOf(platform, token, entityType, entityId);

describe('first-level menus', () => {
  it('creates a menu with a generated code that is never a product type, and the counts and label', async () => {
    const menu = await admin.menu({ name: '香港云', product_type: 'cloud_server', icon: 'hk', is_visible: true });
    expect(menu).toMatchObject({ name: '香港云', icon: 'hk', product_type: 'cloud_server', product_type_label: '云服务器', is_visible: 1, group_count: 0, product_count: 0 });
    expect(menu.code).toMatch(/^menu_[0-9a-z]{8}$/);
    expect(PRODUCT_TYPES as readonly string[]).not.toContain(menu.code);
    const again = await admin.menu({ name: '另一个', product_type: 'cloud_server' });
    expect(again.code).not.toBe(menu.code);
    expect(again.sort_order).toBeGreaterThan(menu.sort_order);
    const detail = await admin.call('get', `/api/v2/admin/product-menus/${menu.id}`);
    expect(detail).toEqual(menu);
    const [audit] = await auditOf('menu', menu.id);
    expect(audit).toMatchObject({ action: 'create', operator_name: 'root', operator_id: expect.any(Number) });
    expect(audit?.changed_fields).toEqual(expect.arrayContaining(['code', 'name', 'product_type']));
  });

  it('refuses a missing or unknown product type and a code in the body is not taken', async () => {
    const missing = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '缺类型' } });
    expectError(missing, 42200, 422);
    expect(missing.body.data.errors.product_type).toHaveLength(1);
    const unknown = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '坏类型', product_type: 'vps' } });
    expectError(unknown, 42200, 422);
    // The code is the platform's own: a body naming it is refused (an undeclared key), nothing is made.
    const withCode = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '自带编码', product_type: 'cloud_server', code: 'cloud_server' } });
    expectError(withCode, 42200, 422);
    expect(Object.keys(withCode.body.data.errors)).toEqual(['code']);
    const made = await admin.menu({ name: '自带编码' });
    expect(made.code).toMatch(/^menu_/);
  });

  it('lists with filters, paging and a sort whitelist', async () => {
    await admin.menu({ name: '桌面菜单', product_type: 'cloud_desktop', is_visible: 0 });
    const desktop = await admin.call('get', '/api/v2/admin/product-menus?product_type=cloud_desktop');
    expect(desktop.list.map((m: { name: string }) => m.name)).toEqual(['桌面菜单']);
    const hidden = await admin.call('get', '/api/v2/admin/product-menus?is_visible=0');
    expect(hidden.list.every((m: { is_visible: number }) => m.is_visible === 0)).toBe(true);
    const byName = await admin.call('get', '/api/v2/admin/product-menus?sort=-id&page_size=2');
    expect(byName).toMatchObject({ page: 1, page_size: 2 });
    expect(byName.list[0].id).toBeGreaterThan(byName.list[1].id);
    expectError(await platform.api.get('/api/v2/admin/product-menus', { token, query: { sort: 'code' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/product-menus', { token, query: { per_page: 5 } }), 42200, 422);
  });

  it('propagates a type change to every product of the menu in the same transaction, with audit entries', async () => {
    const menu = await admin.menu({ name: '将改类型', product_type: 'cloud_server' });
    const group = await admin.group(menu.id);
    const category = await admin.category(group.id);
    const a = await admin.product({ name: 'A', product_group_id: category.id });
    const b = await admin.product({ name: 'B', first_product_group_id: menu.id });
    const updated = await admin.call('put', `/api/v2/admin/product-menus/${menu.id}`, { product_type: 'bare_metal' });
    expect(updated).toMatchObject({ product_type: 'bare_metal', product_type_label: '裸金属服务器', product_count: 2, group_count: 1 });
    for (const row of await productRows(menu.id)) expect(row).toMatchObject({ product_type: 'bare_metal', service_type_code: 'bare_metal' });
    for (const id of [a.id, b.id]) {
      const [entry] = await auditOf('product', id);
      expect(entry).toMatchObject({ action: 'retype', changed_fields: ['product_type', 'service_type_code'], summary: '商品类型：cloud_server → bare_metal；服务类型：cloud_server → bare_metal' });
    }
    const [menuAudit] = await auditOf('menu', menu.id);
    expect(menuAudit).toMatchObject({ action: 'update', changed_fields: ['product_type'] });
    const entry = await admin.call('get', `/api/v2/admin/catalogue-audit-logs/${menuAudit?.id}`);
    expect(entry.changes).toEqual([{ field: 'product_type', label: '商品类型', old: 'cloud_server', new: 'bare_metal' }]);
  });

  it('refuses to turn a menu into type other while a product lacks an enabled upstream plugin, and changes nothing', async () => {
    const menu = await admin.menu({ name: '改成其他', product_type: 'cdn' });
    const bound = await admin.product({ name: '已绑定', first_product_group_id: menu.id, plugin_id: upstreamId });
    const unbound = await admin.product({ name: '未绑定', first_product_group_id: menu.id });
    const res = await platform.api.put(`/api/v2/admin/product-menus/${menu.id}`, { token, body: { product_type: 'other', name: '新名字' } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.product_type[0]).toContain(`未绑定（#${unbound.id}）`);
    expect(res.body.data.errors.product_type[0]).not.toContain(`#${bound.id}`);
    expect(await admin.call('get', `/api/v2/admin/product-menus/${menu.id}`)).toMatchObject({ name: '改成其他', product_type: 'cdn' });
    await admin.call('put', `/api/v2/admin/products/${unbound.id}`, { plugin_id: upstreamId });
    expect(await admin.call('put', `/api/v2/admin/product-menus/${menu.id}`, { product_type: 'other' })).toMatchObject({ product_type: 'other' });
    for (const row of await productRows(menu.id)) expect(row).toMatchObject({ product_type: 'other', service_type_code: 'other' });
  });

  it('refuses to delete a menu occupied by groups or products with 40901 naming them, then deletes it once empty', async () => {
    const menu = await admin.menu({ name: '待删菜单' });
    const group = await admin.group(menu.id, { name: '待删分组' });
    const product = await admin.product({ name: '待删商品', first_product_group_id: menu.id });
    const refused = await platform.api.del(`/api/v2/admin/product-menus/${menu.id}`, { token });
    expectError(refused, 40901, 409);
    expect(refused.body.message).toBe('一级菜单“待删菜单”下仍有 1 个二级分组、1 个商品，请先移走或删除后再删除菜单');
    expect(refused.body.data).toEqual({ groups: 1, products: 1 });
    await admin.call('del', `/api/v2/admin/products/${product.id}`);
    const groupOnly = await platform.api.del(`/api/v2/admin/product-menus/${menu.id}`, { token });
    expect(groupOnly.body.message).toContain('1 个二级分组');
    expect(groupOnly.body.message).not.toContain('商品');
    await admin.call('del', `/api/v2/admin/product-groups/${group.id}`);
    expect(await admin.call('del', `/api/v2/admin/product-menus/${menu.id}`)).toBeNull();
    expectError(await platform.api.get(`/api/v2/admin/product-menus/${menu.id}`, { token }), 40400, 404);
    expectError(await platform.api.del(`/api/v2/admin/product-menus/${menu.id}`, { token }), 40400, 404);
  });

  it('reorders all or nothing: an unknown or repeated id changes nothing', async () => {
    const m1 = await admin.menu({ name: '排序一', sort_order: 1 });
    const m2 = await admin.menu({ name: '排序二', sort_order: 2 });
    const refused = await platform.api.post('/api/v2/admin/product-menus/reorders', {
      token,
      body: { items: [{ id: m1.id, sort_order: 20 }, { id: 999_999, sort_order: 10 }] },
    });
    expectError(refused, 42200, 422);
    expect(Object.keys(refused.body.data.errors)).toEqual(['items.1.id']);
    const repeated = await platform.api.post('/api/v2/admin/product-menus/reorders', {
      token,
      body: { items: [{ id: m1.id, sort_order: 20 }, { id: m1.id, sort_order: 10 }] },
    });
    expect(Object.keys(repeated.body.data.errors)).toEqual(['items.1.id']);
    expect((await admin.call('get', `/api/v2/admin/product-menus/${m1.id}`)).sort_order).toBe(1);
    const done = await admin.call('post', '/api/v2/admin/product-menus/reorders', { items: [{ id: m1.id, sort_order: 20 }, { id: m2.id, sort_order: 10 }] });
    expect(done.list).toEqual([{ id: m1.id, sort_order: 20 }, { id: m2.id, sort_order: 10 }]);
    expect((await admin.call('get', `/api/v2/admin/product-menus/${m1.id}`)).sort_order).toBe(20);
    const [entry] = await auditOf('menu', m1.id);
    expect(entry).toMatchObject({ action: 'reorder', summary: '排序：1 → 20' });
    expectError(await platform.api.post('/api/v2/admin/product-menus/reorders', { token, body: { ids: [m1.id] } }), 42200, 422);
  });
});

describe('the directory tree', () => {
  it('serves the directory tree as flat lists with parent ids and counts', async () => {
    const menu = await admin.menu({ name: '树菜单', product_type: 'cdn' });
    const group = await admin.group(menu.id, { name: '树分组' });
    const category = await admin.category(group.id, { name: '树分类' });
    await admin.product({ name: '树商品', product_group_id: category.id });
    const tree = await admin.call('get', '/api/v2/admin/product-menus/tree');
    expect(tree.menus.find((m: { id: number }) => m.id === menu.id)).toMatchObject({ name: '树菜单', group_count: 1, product_count: 1 });
    expect(tree.groups.find((g: { id: number }) => g.id === group.id)).toEqual({ id: group.id, first_product_group_id: menu.id, name: '树分组', is_visible: 1, sort_order: 1, category_count: 1, product_count: 1 });
    expect(tree.categories.find((c: { id: number }) => c.id === category.id)).toEqual({ id: category.id, second_product_group_id: group.id, name: '树分类', is_visible: 1, sort_order: 1, product_count: 1 });
  });
});

describe('permissions', () => {
  it('lets product.view read and only product.manage write', async () => {
    const role = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'catalogue_viewer', name: '目录只读', permissions: ['product.view'] } });
    await platform.api.post('/api/v2/admin/auth/admins', { token, body: { username: 'viewer1', password: 'viewer-password-1', role_id: role.body.data.id } });
    const viewer = (await platform.api.post('/api/v2/admin/login', { body: { username: 'viewer1', password: 'viewer-password-1' } })).body.data.access_token;
    expect((await platform.api.get('/api/v2/admin/product-menus', { token: viewer })).body.code).toBe(0);
    expect((await platform.api.get('/api/v2/admin/product-type-options', { token: viewer })).body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/admin/product-menus', { token: viewer, body: { name: 'x', product_type: 'cdn' } }), 40300, 403);
  });
});
