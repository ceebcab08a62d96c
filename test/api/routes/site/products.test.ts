import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_TYPES } from '../../../../db/models/catalogue.js';
import { catalogueAdmin, installFixturePlugin } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { createPluginsRoot, upstreamFixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { metricsRegistry } from '../../../../lib/metrics.js';

const fixtures = createPluginsRoot();
let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;
let token: string;
let schemaPlugin: number;
let plainPlugin: number;

beforeAll(async () => {
  fixtures.write('upstream', 'acme_cloud', upstreamFixtureManifest('acme_cloud'));
  fixtures.write('upstream', 'bare_cloud', upstreamFixtureManifest('bare_cloud', { schemas: false }));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
  admin = catalogueAdmin(platform, () => platform.rootToken());
  schemaPlugin = await installFixturePlugin(platform, 'upstream', 'acme_cloud');
  plainPlugin = await installFixturePlugin(platform, 'upstream', 'bare_cloud');
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

/** Requests answered before the router (api/public-answers.ts) so far, in this process. */
async function lane(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('cache_lookups_total')?.get();
  return metric?.values.find((v) => v.labels.cache === 'public_answers' && v.labels.result === 'hit')?.value ?? 0;
}

const site = (path: string, query?: Record<string, string | number>) => platform.api.get(`/api/v2/site${path}`, query ? { query } : {});

describe('site product list', () => {
  it('lists listed products with paging, filters and a sort whitelist', async () => {
    const menu = await admin.menu({ name: '列表菜单', product_type: 'web_hosting' });
    for (const [name, price] of [['贵', '99.00'], ['便宜', '1.00'], ['中等', '10.00']] as const) {
      await admin.product({ name, first_product_group_id: menu.id, pricing: { annually: price } });
    }
    await admin.product({ name: '不在售', first_product_group_id: menu.id, status: 'hidden' });
    const byPrice = await site('/products', { first_product_group_id: menu.id, sort: 'price' });
    expect(byPrice.body.data.list.map((p: { name: string }) => p.name)).toEqual(['便宜', '中等', '贵']);
    expect(byPrice.body.data.list[0]).toMatchObject({ primary_price: '1.00', primary_billing_period: 'annually', stock_status: 'unlimited', purchasable_online: true, product_type_label: '虚拟主机' });
    const paged = await site('/products', { first_product_group_id: menu.id, page: 2, page_size: 2, sort: '-price' });
    expect(paged.body.data).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(paged.body.data.list.map((p: { name: string }) => p.name)).toEqual(['便宜']);
    expectError(await site('/products', { sort: 'stock_qty' }), 42200, 422);
    expectError(await site('/products', { limit: 5 }), 42200, 422);
  });
});

describe('site product detail', () => {
  const expected: Record<string, [string, string]> = {
    cloud_server: ['compute', 'compute'],
    game_cloud: ['compute_game', 'game_compute'],
    cloud_desktop: ['cloud_desktop', 'cloud_desktop'],
    bare_metal: ['bare_metal', 'bare_metal'],
    cdn: ['cdn', 'cdn'],
    physical_machine: ['physical_machine', 'physical_machine'],
    web_hosting: ['web_hosting', 'web_hosting'],
    other: ['plugin_schema', 'plugin_schema'],
  };

  it('resolves the templates of all 8 types in the spec order', async () => {
    for (const type of PRODUCT_TYPES) {
      const menu = await admin.menu({ name: `类型 ${type}`, product_type: type });
      const product = await admin.product({ name: `商品 ${type}`, first_product_group_id: menu.id, ...(type === 'other' ? { plugin_id: schemaPlugin } : {}) });
      const res = await site(`/products/${product.id}`);
      const [purchase, consoleTemplate] = expected[type] as [string, string];
      expect(res.body.data, type).toMatchObject({
        product_type: type,
        purchase_template: purchase,
        console_template: consoleTemplate,
        purchasable_online: true,
        not_purchasable_reason: null,
        purchase_capabilities: type === 'other' ? ['quote', 'checkout', 'config_schema'] : ['quote', 'checkout'],
      });
    }
  });

  it('lets an explicit template on the product win over the type', async () => {
    const menu = await admin.menu({ name: '显式模板', product_type: 'cloud_server' });
    const product = await admin.product({ name: '自定义', first_product_group_id: menu.id, purchase_template: 'custom_buy' });
    expect((await site(`/products/${product.id}`)).body.data).toMatchObject({ purchase_template: 'custom_buy', console_template: 'compute' });
  });

  it('serves the plugin schemas for other, and says why a product without a purchase schema is not purchasable online', async () => {
    const menu = await admin.menu({ name: '插件驱动', product_type: 'other' });
    const withSchema = await admin.product({ name: '有表单', first_product_group_id: menu.id, plugin_id: schemaPlugin });
    const res = await site(`/products/${withSchema.id}`);
    expect(res.body.data).toMatchObject({
      provider_key: 'acme_cloud_api',
      plugin_key: 'acme_cloud',
      purchase_schema: { template: 'vps_form' },
      console_schema: { template: 'vps_console' },
      console_sections: [{ key: 'overview', title: '概览' }],
      console_actions: [{ key: 'reboot', label: '重启', capability: 'power' }],
      status_mapping: { Active: '运行中', Suspended: '已暂停', Terminated: '已销毁' },
    });
    expect(res.body.data.purchase_fields[1]).toEqual({ key: 'region', label: '区域', type: 'select', options: { hk: '香港', sg: '新加坡' }, rules: { nested: '{"deep":true}' } });

    const without = await admin.product({ name: '无表单', first_product_group_id: menu.id, plugin_id: plainPlugin });
    const plain = await site(`/products/${without.id}`);
    expect(plain.body.data).toMatchObject({
      purchase_template: null,
      console_template: null,
      purchasable_online: false,
      not_purchasable_reason: '该商品的上游插件未提供购买表单，暂不支持在线购买',
      purchase_capabilities: [],
      plugin_key: 'bare_cloud',
    });
    const quote = await platform.api.post(`/api/v2/site/products/${without.id}/quote`, { body: { billing_period: 'monthly' } });
    expectError(quote, 40903, 409);

    await platform.api.post(`/api/v2/admin/integration-plugins/${schemaPlugin}/disable`, { token });
    const disabled = await site(`/products/${withSchema.id}`);
    expect(disabled.body.data).toMatchObject({ purchasable_online: false, plugin_key: null, not_purchasable_reason: '该商品未绑定可用的上游插件，暂不支持在线购买' });
    expectError(await platform.api.post(`/api/v2/site/products/${withSchema.id}/quote`, { body: { billing_period: 'monthly' } }), 40903, 409);
    await platform.api.post(`/api/v2/admin/integration-plugins/${schemaPlugin}/enable`, { token });
    expect((await site(`/products/${withSchema.id}`)).body.data.purchasable_online).toBe(true);
  });

  it('leaves hidden options out, flattens choices with their prices and groups systems by family', async () => {
    const menu = await admin.menu({ name: '配置展示', product_type: 'cloud_server' });
    const product = await admin.product({
      name: '有配置',
      first_product_group_id: menu.id,
      pricing: { monthly: '10.00' },
      config_options: [
        { field: 'os', name: '系统', option_type: 5, sub: [
          { id: 10, value: 'c7', label: 'CentOS 7.9', version: 'CentOS^7.9' },
          { id: 11, value: 'u22', label: 'Ubuntu 22.04', version: 'Ubuntu^22.04' },
          { id: 12, value: 'c9', label: 'CentOS Stream 9', version: 'CentOS^Stream 9', pricing: { monthly: '1.00' } },
        ] },
        { field: 'area', name: '机房', option_type: 12, hidden: true, parameter: '55', sub: [{ value: 'hk', label: '香港' }] },
      ],
    });
    const data = (await site(`/products/${product.id}`)).body.data;
    expect(data.config_options.map((o: { field: string }) => o.field)).toEqual(['os']);
    expect(data.config_choices.map((c: { field: string }) => c.field)).toEqual(['os', 'os', 'os']);
    expect(data.config_choices[2]).toEqual({ field: 'os', id: 12, value: 'c9', label: 'CentOS Stream 9', family: 'CentOS', version: 'Stream 9', qty_minimum: null, qty_maximum: null, pricing: { monthly: '1.00' } });
    expect(data.os_families).toEqual([{ family: 'CentOS', choice_ids: [10, 12] }, { family: 'Ubuntu', choice_ids: [11] }]);
    expect(data.purchase_capabilities).toEqual(['quote', 'checkout', 'config_schema']);
    const raw = JSON.stringify(data);
    expect(raw).not.toContain('机房');
    expect(raw).not.toContain('parameter');
    expect(data.billing_periods).toEqual([{ value: 'monthly', label: '月付', amount: '10.00' }]);
  });

  it('answers 40400 for absent, deleted, hidden products and products under a hidden group', async () => {
    const menu = await admin.menu({ name: '不可见', product_type: 'cdn' });
    const hiddenGroup = await admin.group(menu.id, { is_visible: 0 });
    const hidden = await admin.product({ name: '下架', first_product_group_id: menu.id, status: 'hidden' });
    const deleted = await admin.product({ name: '删掉', first_product_group_id: menu.id });
    await admin.call('del', `/api/v2/admin/products/${deleted.id}`);
    const underHidden = await admin.product({ name: '藏起来', second_product_group_id: hiddenGroup.id });
    for (const id of [999_999, hidden.id, deleted.id, underHidden.id]) {
      const res = await site(`/products/${id}`);
      expectError(res, 40400, 404);
      expect(res.body.message).toBe('商品不存在或已下架');
      expectError(await platform.api.post(`/api/v2/site/products/${id}/quote`, { body: { billing_period: 'monthly' } }), 40400, 404);
    }
  });

  it('shows admin writes at once (the cache is invalidated by the write)', async () => {
    const menu = await admin.menu({ name: '缓存', product_type: 'cdn' });
    const product = await admin.product({ name: '旧名字', first_product_group_id: menu.id });
    expect((await site(`/products/${product.id}`)).body.data.name).toBe('旧名字');
    expect((await site('/products', { first_product_group_id: menu.id })).body.data.total).toBe(1);
    await admin.call('put', `/api/v2/admin/products/${product.id}`, { name: '新名字', status: 'hidden' });
    expectError(await site(`/products/${product.id}`), 40400, 404);
    expect((await site('/products', { first_product_group_id: menu.id })).body.data.total).toBe(0);
    await admin.call('put', `/api/v2/admin/products/${product.id}`, { status: 'active' });
    expect((await site(`/products/${product.id}`)).body.data.name).toBe('新名字');
  });

  it('answers a URL read before from its cached answer (api/public-answers.ts), with the headers of any answer, until a write', async () => {
    const menu = await admin.menu({ name: '直答', product_type: 'cdn' });
    const product = await admin.product({ name: '直答商品', first_product_group_id: menu.id });
    const first = await site(`/products/${product.id}`);
    const before = await lane();
    const again = await site(`/products/${product.id}`);
    const own = await platform.api.get(`/api/v2/site/products/${product.id}`, { headers: { 'x-request-id': 'caller-id-1' } });
    expect(await lane()).toBe(before + 2);
    expect(again.body.data).toEqual(first.body.data);
    for (const res of [again, own]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBeNull();
      expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    }
    expect(again.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(own.headers.get('x-request-id')).toBe('caller-id-1');
    // Another URL of the same route is the chain's: an undeclared parameter is refused as ever.
    expectError(await site(`/products/${product.id}`, { colour: 'red' }), 42200, 422);
    await admin.call('put', `/api/v2/admin/products/${product.id}`, { name: '直答改名' });
    expect((await site(`/products/${product.id}`)).body.data.name).toBe('直答改名');
    await admin.call('put', `/api/v2/admin/products/${product.id}`, { status: 'hidden' });
    expectError(await site(`/products/${product.id}`), 40400, 404);
  });
});

describe('site quote', () => {
  let productId: number;
  beforeAll(async () => {
    const menu = await admin.menu({ name: '报价', product_type: 'cloud_server' });
    const product = await admin.product({
      name: '报价机型',
      first_product_group_id: menu.id,
      pricing: { monthly: '0.10', annually: '1.00' },
      stock_control: true,
      stock_qty: 5,
      config_options: [
        { field: 'cpu', name: 'CPU', option_type: 6, sub: [{ id: 1, value: '1', label: '1 核', pricing: { monthly: '0.20' } }, { id: 2, value: '2', label: '2 核', pricing: { monthly: '0.70' } }] },
        { field: 'memory', name: '内存', option_type: 8, sub: [{ id: 1, value: '1', label: '1 GB', pricing: { monthly: '0.01' } }] },
        { field: 'area', name: '地域', option_type: 12, sub: [{ id: 1, value: 'hk', label: '香港', pricing: { monthly: '0.07' } }] },
        { field: 'os', name: '系统', option_type: 5, sub: [{ id: 1, value: 'u', label: 'Ubuntu', version: 'Ubuntu^22.04', pricing: { monthly: '0.03' } }] },
        { field: 'system_disk_size', name: '系统盘', option_type: 15, qty_minimum: 20, qty_maximum: 200, unit: 'GB', sub: [{ value: 'ssd', qty_minimum: 20, qty_maximum: 200, pricing: { monthly: '0.01' } }] },
        { field: 'bw', name: '带宽', option_type: 15, qty_minimum: 1, qty_maximum: 100, unit: 'Mbps', sub: [{ value: 'bw', qty_minimum: 1, qty_maximum: 100, pricing: { monthly: '0.33' } }] },
        { field: 'ip_num', name: 'IP', option_type: 4, qty_minimum: 1, qty_maximum: 8, hidden: true, sub: [{ value: 'ip', qty_minimum: 1, qty_maximum: 8, pricing: { monthly: '0.11' } }] },
      ],
    });
    productId = product.id;
  });

  const quote = (body: unknown) => platform.api.post(`/api/v2/site/products/${productId}/quote`, { body });

  it('adds awkward decimals exactly: 0.10 + 0.20 is 0.30', async () => {
    const res = await quote({ billing_period: 'monthly', config: { cpu: 1 }, quantity: 1 });
    expect(res.body.message).toBe('报价成功');
    const lines = res.body.data.lines as Array<{ key: string; amount: string }>;
    expect(lines.slice(0, 2).map((l) => [l.key, l.amount])).toEqual([['base', '0.10'], ['config.cpu', '0.20']]);
    expect(new Decimal(lines[0]?.amount ?? 0).plus(lines[1]?.amount ?? 0).toFixed(2)).toBe('0.30');
  });

  it('prices many items, per-unit quantities and several instances exactly', async () => {
    const res = await quote({ billing_period: 'monthly', config: { cpu: 2, memory: 1, area: '1', os: 1, system_disk_size: 33, bw: '7' }, quantity: 3 });
    expect(res.body.data).toMatchObject({ product_id: productId, billing_period: 'monthly', quantity: 3, currency: 'CNY' });
    expect(res.body.data.lines.map((l: { key: string; unit_amount: string; amount: string }) => [l.key, l.unit_amount, l.amount])).toEqual([
      ['base', '0.10', '0.30'],
      ['config.cpu', '0.70', '2.10'],
      ['config.memory', '0.01', '0.03'],
      ['config.area', '0.07', '0.21'],
      ['config.os', '0.03', '0.09'],
      ['config.system_disk_size', '0.33', '0.99'],
      ['config.bw', '2.31', '6.93'],
      ['config.ip_num', '0.11', '0.33'],
    ]);
    // (0.10 + 0.70 + 0.01 + 0.07 + 0.03 + 33×0.01 + 7×0.33 + 1×0.11) × 3 = 3.66 × 3
    expect(res.body.data.total_amount).toBe('10.98');
    const sum = res.body.data.lines.reduce((acc: Decimal, l: { amount: string }) => acc.plus(l.amount), new Decimal(0));
    expect(sum.toFixed(2)).toBe(res.body.data.total_amount);
    expect(res.body.data.config.ip_num).toEqual({ value: 1, label: 'IP：1' });
  });

  it('answers the same selection alike, in any key order, and a price change at once', async () => {
    const first = await quote({ billing_period: 'monthly', config: { cpu: 2, bw: 3 }, quantity: 2 });
    const again = await quote({ quantity: 2, config: { bw: 3, cpu: 2 }, billing_period: 'monthly' });
    expect(again.body.message).toBe('报价成功');
    expect(again.body.data).toEqual(first.body.data);
    expect(first.body.data.lines.find((l: { key: string }) => l.key === 'config.cpu').unit_amount).toBe('0.70');
    const options = (await platform.deps.db.models.Product.findByPk(productId))?.config_options ?? [];
    const repriced = options.map((o) => (o.field === 'cpu' ? { ...o, sub: o.sub.map((x) => (x.id === 2 ? { ...x, pricing: { monthly: '0.90' } } : x)) } : o));
    await admin.call('put', `/api/v2/admin/products/${productId}`, { config_options: repriced });
    const after = await quote({ billing_period: 'monthly', config: { cpu: 2, bw: 3 }, quantity: 2 });
    expect(after.body.data.lines.find((l: { key: string }) => l.key === 'config.cpu').unit_amount).toBe('0.90');
    expect(new Decimal(after.body.data.total_amount).minus(first.body.data.total_amount).toFixed(2)).toBe('0.40');
    await admin.call('put', `/api/v2/admin/products/${productId}`, { config_options: options });
    expect((await quote({ billing_period: 'monthly', config: { cpu: 2, bw: 3 }, quantity: 2 })).body.data).toEqual(first.body.data);
  });

  it('answers an anonymous quote sent again with the same body before the router, and a signed-in one through the chain', async () => {
    const body = { billing_period: 'monthly', config: { cpu: 2, memory: 1 }, quantity: 2 };
    const first = await quote(body);
    const before = await lane();
    const again = await quote(body);
    expect(await lane()).toBe(before + 1);
    expect(again.body).toMatchObject({ code: 0, message: '报价成功', data: first.body.data });
    expect(again.headers.get('cache-control')).toBe('no-store');
    // A token (here an admin's, quoted anonymously) goes through the chain, as does another body.
    expect((await platform.api.post(`/api/v2/site/products/${productId}/quote`, { body, token })).body.data).toEqual(first.body.data);
    expect((await quote({ ...body, quantity: 3 })).body.data.quantity).toBe(3);
    expect(await lane()).toBe(before + 1);
    // Only the same content type: one the chain refuses (415) is refused with a remembered body too.
    const spaced = await platform.api.post(`/api/v2/site/products/${productId}/quote`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json ; charset=utf-8' },
    });
    expectError(spaced, 41500, 415);
    expect(await lane()).toBe(before + 1);
    // A refused body is never remembered: sent again, it is refused again by the chain.
    expectError(await quote({ ...body, quantity: 0 }), 42200, 422);
    expectError(await quote({ ...body, quantity: 0 }), 42200, 422);
    expect(await lane()).toBe(before + 1);
  });

  it('refuses a bad billing period, config value, hidden option or quantity with 42200 naming each field', async () => {
    const res = await quote({ billing_period: 'quarterly', config: { cpu: 9, bw: 101, ip_num: 2, gpu: 1 }, quantity: 21 });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors).sort()).toEqual(['billing_period', 'config.bw', 'config.cpu', 'config.gpu', 'config.ip_num', 'quantity']);
    expect(res.body.data.errors['config.ip_num']).toEqual(['配置项 IP 不可选择']);
    expectError(await quote({ config: {} }), 42200, 422);
    expectError(await quote({ billing_period: 'monthly', config: [1] }), 42200, 422);
  });

  it('answers 40902 when the stock cannot cover the quantity', async () => {
    const res = await quote({ billing_period: 'annually', quantity: 6 });
    expectError(res, 40902, 409);
    expect(res.body.message).toBe('该商品库存不足，当前仅剩 5 件');
    expect((await quote({ billing_period: 'annually', quantity: 5 })).body.data.total_amount).toBe('5.00');
    await admin.call('put', `/api/v2/admin/products/${productId}`, { stock_qty: 0 });
    expect((await quote({ billing_period: 'annually' })).body.message).toBe('该商品已售罄');
    // The very selection quoted before the change is not answered from memory.
    expectError(await quote({ billing_period: 'annually', quantity: 5 }), 40902, 409);
    const detail = (await site(`/products/${productId}`)).body.data;
    expect(detail).toMatchObject({ stock_status: 'out_of_stock', purchase_capabilities: ['quote', 'config_schema'], not_purchasable_reason: '该商品已售罄，暂不可下单' });
  });
});
