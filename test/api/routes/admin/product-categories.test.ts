import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin, productPlacements } from '../../../helpers/catalogue.js';
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

describe('third-level categories', () => {
  it('creates, lists by parent and refuses an unknown parent', async () => {
    const menu = await admin.menu({ name: '分类测试' });
    const group = await admin.group(menu.id, { name: '甲' });
    const c1 = await admin.category(group.id, { name: '子类' });
    expect(c1).toMatchObject({ second_product_group_id: group.id, first_product_group_id: menu.id, product_type: 'cloud_server', product_count: 0 });
    const cats = await admin.call('get', `/api/v2/admin/product-categories?second_product_group_id=${group.id}`);
    expect(cats.total).toBe(1);
    const badCat = await platform.api.post('/api/v2/admin/product-categories', { token, body: { name: '孤儿', second_product_group_id: 999_999 } });
    expectError(badCat, 42200, 422);
    expect(badCat.body.data.errors).toEqual({ second_product_group_id: ['二级分组不存在'] });
    expect(await platform.deps.db.models.ProductCategory.count({ where: { name: '孤儿' } })).toBe(0);
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
    const [row] = await productPlacements(platform, m2.id);
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
    expect((await productPlacements(platform, plain.id))[0]).toMatchObject({ product_type: 'cdn' });
  });

  it('refuses to delete an occupied category with 40901, then deletes it once empty', async () => {
    const menu = await admin.menu({ name: '删除测试' });
    const group = await admin.group(menu.id, { name: '满的分组' });
    const category = await admin.category(group.id, { name: '满的分类' });
    const product = await admin.product({ name: '占位', product_group_id: category.id });
    const categoryRefused = await platform.api.del(`/api/v2/admin/product-categories/${category.id}`, { token });
    expectError(categoryRefused, 40901, 409);
    expect(categoryRefused.body.data).toEqual({ products: 1 });
    await admin.call('del', `/api/v2/admin/products/${product.id}`);
    await admin.call('del', `/api/v2/admin/product-categories/${category.id}`);
    expectError(await platform.api.get(`/api/v2/admin/product-categories/${category.id}`, { token }), 40400, 404);
  });

  it('reorders categories all or nothing: an unknown id changes nothing', async () => {
    const menu = await admin.menu({ name: '排序菜单' });
    const group = await admin.group(menu.id, { name: 'A' });
    const c = await admin.category(group.id);
    const refused = await platform.api.post('/api/v2/admin/product-categories/reorders', { token, body: { items: [{ id: c.id, sort_order: 5 }, { id: group.id + 100_000, sort_order: 1 }] } });
    expectError(refused, 42200, 422);
    expect((await admin.call('get', `/api/v2/admin/product-categories/${c.id}`)).sort_order).toBe(1);
    await admin.call('post', '/api/v2/admin/product-categories/reorders', { items: [{ id: c.id, sort_order: 5 }] });
    expect((await admin.call('get', `/api/v2/admin/product-categories/${c.id}`)).sort_order).toBe(5);
  });
});
