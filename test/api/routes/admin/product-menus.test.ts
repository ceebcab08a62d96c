import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_TYPES } from '../../../../db/models/catalogue.js';
import { catalogueAdmin, installFixturePlugin } from '../../../helpers/catalogue.js';
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

async function productRows(menuId: number) {
  const [rows] = await platform.deps.db.sequelize.query(
    `SELECT id, first_product_group_id, second_product_group_id, product_group_id, product_type, service_type_code FROM products WHERE first_product_group_id = ${menuId} ORDER BY id`,
  );
  return rows as Array<Record<string, unknown>>;
}

async function auditOf(entityType: string, entityId: number) {
  const res = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: entityType, entity_id: entityId } });
  expect(res.body.code).toBe(0);
  return res.body.data.list as Array<Record<string, any>>;
}

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

describe('second-level groups and third-level categories', () => {
  it('creates, lists by parent, updates visibility and refuses an unknown parent', async () => {
    const menu = await admin.menu({ name: '分组测试' });
    const g1 = await admin.group(menu.id, { name: '甲', description: '说明' });
    await admin.group(menu.id, { name: '乙', is_visible: 0 });
    expect(g1).toMatchObject({ first_product_group_id: menu.id, product_type: 'cloud_server', description: '说明', is_visible: 1, category_count: 0, product_count: 0 });
    const list = await admin.call('get', `/api/v2/admin/product-groups?first_product_group_id=${menu.id}`);
    expect(list.list.map((g: { name: string }) => g.name)).toEqual(['甲', '乙']);
    expect(await admin.call('put', `/api/v2/admin/product-groups/${g1.id}`, { is_visible: false })).toMatchObject({ is_visible: 0 });
    const bad = await platform.api.post('/api/v2/admin/product-groups', { token, body: { name: '孤儿', first_product_group_id: 999_999 } });
    expectError(bad, 42200, 422);
    expect(bad.body.data.errors).toEqual({ first_product_group_id: ['一级菜单不存在'] });
    const c1 = await admin.category(g1.id, { name: '子类' });
    expect(c1).toMatchObject({ second_product_group_id: g1.id, first_product_group_id: menu.id, product_type: 'cloud_server', product_count: 0 });
    const cats = await admin.call('get', `/api/v2/admin/product-categories?second_product_group_id=${g1.id}`);
    expect(cats.total).toBe(1);
    const badCat = await platform.api.post('/api/v2/admin/product-categories', { token, body: { name: '孤儿', second_product_group_id: 999_999 } });
    expect(badCat.body.data.errors).toEqual({ second_product_group_id: ['二级分组不存在'] });
  });

  it('moving a group to another menu re-derives its products menu and type in the same transaction', async () => {
    const from = await admin.menu({ name: '源菜单', product_type: 'cloud_server' });
    const to = await admin.menu({ name: '目标菜单', product_type: 'game_cloud' });
    const group = await admin.group(from.id);
    const category = await admin.category(group.id);
    const inCategory = await admin.product({ name: '分类里', product_group_id: category.id });
    const inGroup = await admin.product({ name: '分组里', second_product_group_id: group.id });
    const moved = await admin.call('put', `/api/v2/admin/product-groups/${group.id}`, { first_product_group_id: to.id });
    expect(moved).toMatchObject({ first_product_group_id: to.id, product_type: 'game_cloud', category_count: 1, product_count: 2 });
    const rows = await productRows(to.id);
    expect(rows.map((r) => r.id)).toEqual([inCategory.id, inGroup.id]);
    for (const row of rows) expect(row).toMatchObject({ second_product_group_id: group.id, product_type: 'game_cloud', service_type_code: 'game_cloud' });
    expect(await admin.call('get', `/api/v2/admin/product-categories/${category.id}`)).toMatchObject({ first_product_group_id: to.id, product_type: 'game_cloud' });
    const [entry] = await auditOf('product', inCategory.id);
    expect(entry).toMatchObject({ action: 'move', changed_fields: ['first_product_group_id', 'product_type', 'service_type_code'] });
    expect((await admin.call('get', `/api/v2/admin/product-menus/${from.id}`)).product_count).toBe(0);
  });

  it('moving a category to another group re-derives group, menu and type of its products', async () => {
    const m1 = await admin.menu({ name: '一号', product_type: 'web_hosting' });
    const m2 = await admin.menu({ name: '二号', product_type: 'physical_machine' });
    const g1 = await admin.group(m1.id);
    const g2 = await admin.group(m2.id);
    const category = await admin.category(g1.id);
    const product = await admin.product({ name: '会移动', product_group_id: category.id });
    expect(await admin.call('put', `/api/v2/admin/product-categories/${category.id}`, { second_product_group_id: g2.id })).toMatchObject({
      second_product_group_id: g2.id,
      first_product_group_id: m2.id,
      product_type: 'physical_machine',
    });
    const [row] = await productRows(m2.id);
    expect(row).toEqual({ id: product.id, first_product_group_id: m2.id, second_product_group_id: g2.id, product_group_id: category.id, product_type: 'physical_machine', service_type_code: 'physical_machine' });
  });

  it('refuses to move products under an other menu when one lacks an enabled upstream plugin', async () => {
    const plain = await admin.menu({ name: '普通', product_type: 'cdn' });
    const other = await admin.menu({ name: '插件菜单', product_type: 'other' });
    const group = await admin.group(plain.id);
    const category = await admin.category(group.id);
    await admin.product({ name: '没插件', product_group_id: category.id });
    const otherGroup = await admin.group(other.id);
    const refused = await platform.api.put(`/api/v2/admin/product-categories/${category.id}`, { token, body: { second_product_group_id: otherGroup.id } });
    expectError(refused, 42200, 422);
    expect(refused.body.data.errors.second_product_group_id[0]).toContain('没插件');
    const refusedGroup = await platform.api.put(`/api/v2/admin/product-groups/${group.id}`, { token, body: { first_product_group_id: other.id } });
    expect(refusedGroup.body.data.errors.first_product_group_id[0]).toContain('必须绑定已启用的上游插件');
    expect((await productRows(plain.id))[0]).toMatchObject({ product_type: 'cdn' });
  });

  it('refuses to delete occupied groups and categories with 40901', async () => {
    const menu = await admin.menu({ name: '删除测试' });
    const group = await admin.group(menu.id, { name: '满的分组' });
    const category = await admin.category(group.id, { name: '满的分类' });
    const product = await admin.product({ name: '占位', product_group_id: category.id });
    const groupRefused = await platform.api.del(`/api/v2/admin/product-groups/${group.id}`, { token });
    expectError(groupRefused, 40901, 409);
    expect(groupRefused.body.message).toBe('二级分组“满的分组”下仍有 1 个三级分类、1 个商品，请先移走或删除后再删除分组');
    const categoryRefused = await platform.api.del(`/api/v2/admin/product-categories/${category.id}`, { token });
    expectError(categoryRefused, 40901, 409);
    expect(categoryRefused.body.data).toEqual({ products: 1 });
    await admin.call('del', `/api/v2/admin/products/${product.id}`);
    await admin.call('del', `/api/v2/admin/product-categories/${category.id}`);
    await admin.call('del', `/api/v2/admin/product-groups/${group.id}`);
    expect((await admin.call('get', `/api/v2/admin/product-menus/${menu.id}`)).group_count).toBe(0);
  });

  it('reorders groups and categories like menus', async () => {
    const menu = await admin.menu({ name: '排序菜单' });
    const [a, b] = [await admin.group(menu.id, { name: 'A' }), await admin.group(menu.id, { name: 'B' })];
    await admin.call('post', '/api/v2/admin/product-groups/reorders', { items: [{ id: a.id, sort_order: 9 }, { id: b.id, sort_order: 1 }] });
    const list = await admin.call('get', `/api/v2/admin/product-groups?first_product_group_id=${menu.id}`);
    expect(list.list.map((g: { name: string }) => g.name)).toEqual(['B', 'A']);
    const c = await admin.category(a.id);
    const refused = await platform.api.post('/api/v2/admin/product-categories/reorders', { token, body: { items: [{ id: c.id, sort_order: 5 }, { id: a.id + 100_000, sort_order: 1 }] } });
    expectError(refused, 42200, 422);
    expect((await admin.call('get', `/api/v2/admin/product-categories/${c.id}`)).sort_order).toBe(1);
  });

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
