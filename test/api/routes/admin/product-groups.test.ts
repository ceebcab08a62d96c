import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin, catalogueAuditOf, productPlacements } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  admin = catalogueAdmin(platform, () => platform.rootToken());
});
afterAll(() => platform?.close());

describe('second-level groups', () => {
  it('creates, lists by parent, updates visibility and refuses an unknown parent', async () => {
    const menu = await admin.menu({ name: '分组测试' });
    const g1 = await admin.group(menu.id, { name: '甲', description: '说明' });
    await admin.group(menu.id, { name: '乙', is_visible: 0 });
    expect(g1).toMatchObject({ first_product_group_id: menu.id, product_type: 'cloud_server', description: '说明', is_visible: 1, category_count: 0, product_count: 0 });
    const list = await admin.call('get', `/api/v2/admin/product-groups?first_product_group_id=${menu.id}`);
    expect(list.list.map((g: { name: string }) => g.name)).toEqual(['甲', '乙']);
    expect(await admin.call('put', `/api/v2/admin/product-groups/${g1.id}`, { is_visible: false })).toMatchObject({ is_visible: 0 });
    expect(await admin.call('get', `/api/v2/admin/product-groups/${g1.id}`)).toMatchObject({ name: '甲', is_visible: 0 });
    const bad = await platform.api.post('/api/v2/admin/product-groups', { token, body: { name: '孤儿', first_product_group_id: 999_999 } });
    expectError(bad, 42200, 422);
    expect(bad.body.data.errors).toEqual({ first_product_group_id: ['一级菜单不存在'] });
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
    const rows = await productPlacements(platform, to.id);
    expect(rows.map((r) => r.id)).toEqual([inCategory.id, inGroup.id]);
    for (const row of rows) expect(row).toMatchObject({ second_product_group_id: group.id, product_type: 'game_cloud', service_type_code: 'game_cloud' });
    expect(await admin.call('get', `/api/v2/admin/product-categories/${category.id}`)).toMatchObject({ first_product_group_id: to.id, product_type: 'game_cloud' });
    const [entry] = await catalogueAuditOf(platform, token, 'product', inCategory.id);
    expect(entry).toMatchObject({ action: 'move', changed_fields: ['first_product_group_id', 'product_type', 'service_type_code'] });
    expect((await admin.call('get', `/api/v2/admin/product-menus/${from.id}`)).product_count).toBe(0);
  });

  it('refuses to move products under an other menu when one lacks an enabled upstream plugin', async () => {
    const plain = await admin.menu({ name: '普通', product_type: 'cdn' });
    const other = await admin.menu({ name: '插件菜单', product_type: 'other' });
    const group = await admin.group(plain.id);
    await admin.product({ name: '没插件', second_product_group_id: group.id });
    const refused = await platform.api.put(`/api/v2/admin/product-groups/${group.id}`, { token, body: { first_product_group_id: other.id } });
    expectError(refused, 42200, 422);
    expect(refused.body.data.errors.first_product_group_id[0]).toContain('必须绑定已启用的上游插件');
    expect((await productPlacements(platform, plain.id))[0]).toMatchObject({ product_type: 'cdn' });
  });

  it('refuses to delete an occupied group with 40901, then deletes it once empty', async () => {
    const menu = await admin.menu({ name: '删除测试' });
    const group = await admin.group(menu.id, { name: '满的分组' });
    const category = await admin.category(group.id, { name: '满的分类' });
    const product = await admin.product({ name: '占位', product_group_id: category.id });
    const groupRefused = await platform.api.del(`/api/v2/admin/product-groups/${group.id}`, { token });
    expectError(groupRefused, 40901, 409);
    expect(groupRefused.body.message).toBe('二级分组“满的分组”下仍有 1 个三级分类、1 个商品，请先移走或删除后再删除分组');
    await admin.call('del', `/api/v2/admin/products/${product.id}`);
    await admin.call('del', `/api/v2/admin/product-categories/${category.id}`);
    await admin.call('del', `/api/v2/admin/product-groups/${group.id}`);
    expect((await admin.call('get', `/api/v2/admin/product-menus/${menu.id}`)).group_count).toBe(0);
    expectError(await platform.api.get(`/api/v2/admin/product-groups/${group.id}`, { token }), 40400, 404);
  });

  it('reorders groups like menus, all or nothing', async () => {
    const menu = await admin.menu({ name: '排序菜单' });
    const [a, b] = [await admin.group(menu.id, { name: 'A' }), await admin.group(menu.id, { name: 'B' })];
    await admin.call('post', '/api/v2/admin/product-groups/reorders', { items: [{ id: a.id, sort_order: 9 }, { id: b.id, sort_order: 1 }] });
    const list = await admin.call('get', `/api/v2/admin/product-groups?first_product_group_id=${menu.id}`);
    expect(list.list.map((g: { name: string }) => g.name)).toEqual(['B', 'A']);
    const refused = await platform.api.post('/api/v2/admin/product-groups/reorders', { token, body: { items: [{ id: a.id, sort_order: 1 }, { id: b.id + 100_000, sort_order: 2 }] } });
    expectError(refused, 42200, 422);
    expect((await admin.call('get', `/api/v2/admin/product-groups/${a.id}`)).sort_order).toBe(9);
  });
});
