import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { RESPONSE_LIMIT_FIRST_SCREEN } from '../../../helpers/limits.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = catalogueAdmin(platform, () => platform.rootToken());
});
afterAll(() => platform?.close());

const site = (path: string, query?: Record<string, string | number>) => platform.api.get(`/api/v2/site${path}`, query ? { query } : {});

describe('site directory', () => {
  it('shows visible menus, groups and categories with counts of listed products only', async () => {
    const shown = await admin.menu({ name: '可见菜单', product_type: 'cdn', sort_order: -10 });
    const hiddenMenu = await admin.menu({ name: '隐藏菜单', product_type: 'cdn', is_visible: 0 });
    const g1 = await admin.group(shown.id, { name: '可见分组' });
    const g2 = await admin.group(shown.id, { name: '隐藏分组', is_visible: 0 });
    const c1 = await admin.category(g1.id, { name: '可见分类' });
    await admin.category(g1.id, { name: '隐藏分类', is_visible: 0 });
    await admin.product({ name: '在售', product_group_id: c1.id });
    await admin.product({ name: '下架', product_group_id: c1.id, status: 'hidden' });
    await admin.product({ name: '藏在隐藏分组', second_product_group_id: g2.id });
    await admin.product({ name: '隐藏菜单里', first_product_group_id: hiddenMenu.id });

    const menus = await site('/product-menus');
    expect(menus.body.data.list.map((m: { name: string }) => m.name)).toContain('可见菜单');
    expect(menus.raw).not.toContain('隐藏菜单');
    expect(menus.body.data.list.find((m: { id: number }) => m.id === shown.id)).toEqual({
      id: shown.id,
      code: shown.code,
      name: '可见菜单',
      icon: '',
      product_type: 'cdn',
      product_type_label: 'CDN',
      sort_order: -10,
      group_count: 1,
      product_count: 1,
    });
    const groups = await site('/product-groups', { first_product_group_id: shown.id });
    expect(groups.body.data.list).toEqual([{ id: g1.id, first_product_group_id: shown.id, name: '可见分组', description: '', sort_order: 1, category_count: 1, product_count: 1 }]);
    const categories = await site('/product-categories', { second_product_group_id: g1.id });
    expect(categories.body.data.list.map((c: { name: string; product_count: number }) => [c.name, c.product_count])).toEqual([['可见分类', 1]]);
    expectError(await site('/product-groups', { first_product_group_id: 'x' }), 42200, 422);
  });
});

describe('home and config', () => {
  it('keeps the first screen under 50 KB with menus and featured products', async () => {
    const res = await site('/home');
    expect(Buffer.byteLength(res.raw)).toBeLessThan(RESPONSE_LIMIT_FIRST_SCREEN);
    await platform.api.get('/api/v2/site/home', { sizeLimit: RESPONSE_LIMIT_FIRST_SCREEN });
    expect(res.body.data).toMatchObject({ site_name: '主机转售平台', currency: 'CNY' });
    expect(res.body.data.featured_products.length).toBeLessThanOrEqual(8);
    expect(res.body.data.featured_products.length).toBeGreaterThan(0);
    expect(res.body.data.menus.every((m: { product_type_label: string }) => m.product_type_label.length > 0)).toBe(true);
  });

  it('gives site name, currency, billing periods with labels and the product types', async () => {
    const res = await site('/config');
    expect(res.body.data).toMatchObject({ site_name: '主机转售平台', currency: 'CNY', currency_symbol: '¥', time_zone: 'Asia/Shanghai', max_quote_quantity: 20, page_size_default: 20, page_size_max: 100 });
    expect(res.body.data.billing_periods[0]).toEqual({ value: 'monthly', label: '月付', months: 1 });
    expect(res.body.data.billing_periods.at(-1)).toEqual({ value: 'onetime', label: '一次性', months: null });
    expect(res.body.data.product_types).toHaveLength(8);
  });
});
