import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin, installFixturePlugin } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { createPluginsRoot, upstreamFixtureManifest } from '../../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const fixtures = createPluginsRoot();
let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;
let token: string;
let enabledPlugin: number;
let idlePlugin: number;
let menu: { id: number; code: string };
let group: { id: number };
let category: { id: number };
let otherMenu: { id: number };

const cpuOption = {
  field: 'cpu',
  name: 'CPU',
  option_type: 6,
  sub: [
    { value: '1', label: '1 核', pricing: { monthly: '0.00' } },
    { value: '2', label: '2 核', pricing: { monthly: '10.00' } },
  ],
};

beforeAll(async () => {
  fixtures.write('upstream', 'acme_cloud', upstreamFixtureManifest('acme_cloud'));
  fixtures.write('upstream', 'idle_cloud', upstreamFixtureManifest('idle_cloud'));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  token = await platform.rootToken();
  admin = catalogueAdmin(platform, () => platform.rootToken());
  enabledPlugin = await installFixturePlugin(platform, 'upstream', 'acme_cloud');
  idlePlugin = await installFixturePlugin(platform, 'upstream', 'idle_cloud', { enable: false });
  menu = await admin.menu({ name: '云服务器', product_type: 'cloud_server' });
  group = await admin.group(menu.id, { name: '香港' });
  category = await admin.category(group.id, { name: '标准型' });
  otherMenu = await admin.menu({ name: '上游', product_type: 'other' });
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

describe('creating products', () => {
  it('takes menu, group and type from the category and ignores a client-supplied type', async () => {
    const product = await admin.product({
      name: '标准型 S1',
      display_name: 'S1',
      product_group_id: category.id,
      product_type: 'cdn',
      service_type_code: 'web_hosting',
      pricing: { monthly: '19.9', annually: 199 },
      config_options: [cpuOption],
    });
    expect(Object.keys(product)).toEqual(['id', 'base', 'pricing', 'provisioning', 'upstream_binding', 'options', 'audit']);
    expect(product.base).toMatchObject({
      name: '标准型 S1',
      product_type: 'cloud_server',
      product_type_label: '云服务器',
      service_type_code: 'cloud_server',
      first_product_group_id: menu.id,
      first_product_group_code: menu.code,
      second_product_group_id: group.id,
      product_group_id: category.id,
      group_path: '云服务器 / 香港 / 标准型',
      status: 'active',
    });
    expect(product.pricing).toEqual({ currency: 'CNY', prices: { monthly: '19.90', annually: '199.00' }, primary_price: '19.90', primary_billing_period: 'monthly' });
    expect(product.provisioning).toMatchObject({ purchase_template: null, resolved_purchase_template: 'compute', resolved_console_template: 'compute', purchasable_online: true, stock_status: 'unlimited' });
    expect(product.upstream_binding).toMatchObject({ bound: false, plugin_id: null, provider_key: null });
    expect(product.options).toEqual({
      items: [expect.objectContaining({ field: 'cpu', input: 'choice', default_value: 1, choice_count: 2, parameter: '' })],
      choice_count: 2,
      choices_path: `/api/v2/admin/products/${product.id}/config-options`,
    });
    expect(product.audit).toMatchObject({ total: 1, list_path: `/api/v2/admin/catalogue-audit-logs?entity_type=product&entity_id=${product.id}` });
    expect(product.audit.entries[0]).toMatchObject({ action: 'create', action_label: '创建', operator_name: 'root' });
    const [row] = (await platform.deps.db.sequelize.query(`SELECT product_type, service_type_code FROM products WHERE id = ${product.id}`))[0] as Array<Record<string, string>>;
    expect(row).toEqual({ product_type: 'cloud_server', service_type_code: 'cloud_server' });
  });

  it('resolves the menu from first_product_group_code, and refuses references that disagree or are absent', async () => {
    const byCode = await admin.product({ name: '按编码', first_product_group_code: menu.code });
    expect(byCode.base).toMatchObject({ first_product_group_id: menu.id, second_product_group_id: null, product_group_id: null, group_path: '云服务器' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ first_product_group_id: otherMenu.id, product_group_id: category.id }, 'first_product_group_id'],
      [{ first_product_group_code: 'menu_nope0000' }, 'first_product_group_code'],
      [{ product_group_id: 999_999 }, 'product_group_id'],
      [{ second_product_group_id: 999_999 }, 'second_product_group_id'],
      [{}, 'first_product_group_id'],
    ];
    for (const [placement, field] of cases) {
      const res = await platform.api.post('/api/v2/admin/products', { token, body: { name: '放错了', pricing: { monthly: '1.00' }, ...placement } });
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors), JSON.stringify(placement)).toEqual([field]);
    }
  });

  it('refuses nested pricing, unknown periods, missing prices and object config_options, naming every field at once', async () => {
    const res = await platform.api.post('/api/v2/admin/products', {
      token,
      body: { name: '坏价格', first_product_group_id: menu.id, pricing: { monthly: { price: '10.00' }, weekly: '1.00' }, config_options: { upstream_product_id: 12 } },
    });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors).sort()).toEqual(['config_options', 'pricing.monthly', 'pricing.weekly']);
    expect(res.body.data.errors['pricing.monthly'][0]).toContain('嵌套');
    const empty = await platform.api.post('/api/v2/admin/products', { token, body: { name: '没价格', first_product_group_id: menu.id, pricing: {} } });
    expect(empty.body.data.errors).toEqual({ pricing: ['请至少填写一个计费周期的价格'] });
    const deepOs = await platform.api.post('/api/v2/admin/products', {
      token,
      body: { name: '坏系统', first_product_group_id: menu.id, pricing: { monthly: '1' }, config_options: [{ field: 'os', name: '系统', option_type: 5, sub: [{ value: 'c7', version: 'CentOS 7' }] }] },
    });
    expect(Object.keys(deepOs.body.data.errors)).toEqual(['config_options.0.sub.0.version']);
    const count = await platform.deps.db.models.Product.count({ where: { name: ['坏价格', '没价格', '坏系统'] } });
    expect(count).toBe(0);
  });

  it('requires an installed, enabled upstream plugin for type other', async () => {
    const none = await platform.api.post('/api/v2/admin/products', { token, body: { name: '无插件', first_product_group_id: otherMenu.id, pricing: { monthly: '5' } } });
    expectError(none, 42200, 422);
    expect(Object.keys(none.body.data.errors)).toEqual(['plugin_id']);
    const disabled = await platform.api.post('/api/v2/admin/products', {
      token,
      body: { name: '未启用', first_product_group_id: otherMenu.id, pricing: { monthly: '5' }, plugin_id: idlePlugin },
    });
    expectError(disabled, 42200, 422);
    expect(disabled.body.data.errors.plugin_id[0]).toContain('尚未启用');
    const missing = await platform.api.post('/api/v2/admin/products', { token, body: { name: '不存在', first_product_group_id: otherMenu.id, pricing: { monthly: '5' }, plugin_id: 99_999 } });
    expect(missing.body.data.errors).toEqual({ plugin_id: ['上游插件不存在或未安装'] });
    const nested = await platform.api.post('/api/v2/admin/products', {
      token,
      body: { name: '坏模板', first_product_group_id: otherMenu.id, pricing: { monthly: '5' }, plugin_id: enabledPlugin, config_template: { a: { b: 1 } } },
    });
    expect(Object.keys(nested.body.data.errors)).toEqual(['config_template.a']);
    const ok = await admin.product({
      name: '上游 VPS',
      first_product_group_id: otherMenu.id,
      pricing: { monthly: '5' },
      plugin_id: enabledPlugin,
      upstream_product_id: '77',
      config_template: { billingcycle: 'monthly', ids: [1, 2] },
      provisioning_policy: { auto_setup: true },
    });
    expect(ok.base.product_type).toBe('other');
    expect(ok.upstream_binding).toEqual({
      bound: true,
      plugin_id: enabledPlugin,
      plugin_key: 'acme_cloud',
      plugin_slug: 'acme_cloud',
      plugin_name: '测试插件 acme_cloud',
      plugin_status: 'enabled',
      provider_key: 'acme_cloud_api',
      supplier_id: null,
      upstream_product_id: '77',
      config_template: { billingcycle: 'monthly', ids: [1, 2] },
      provisioning_policy: { auto_setup: true },
      // Issue #38: the bindings in order (this one first) and the routing policy among them.
      routing_policy: 'priority',
      routing_policy_label: expect.any(String),
      bindings: [
        {
          id: null,
          priority: 0,
          first: true,
          supplier_id: null,
          supplier_code: null,
          supplier_name: null,
          supplier_status: null,
          plugin_id: enabledPlugin,
          plugin_key: 'acme_cloud',
          provider_key: 'acme_cloud_api',
          upstream_product_id: '77',
          config_template_json: JSON.stringify({ billingcycle: 'monthly', ids: [1, 2] }),
          price_rule_type: null,
          price_rule_value: null,
        },
      ],
      bindings_path: `/api/v2/admin/products/${ok.id}/upstream-bindings`,
    });
    expect(ok.provisioning).toMatchObject({ resolved_purchase_template: 'plugin_schema', resolved_console_template: 'plugin_schema', purchasable_online: true });
    const unbind = await platform.api.put(`/api/v2/admin/products/${ok.id}`, { token, body: { plugin_id: null } });
    expect(unbind.body.data.errors).toEqual({ plugin_id: ['类型为“其他”的商品必须绑定已启用的上游插件'] });
  });
});

describe('updating, listing and deleting products', () => {
  it('updates only the given fields, keeps the type from the menu and audits old and new values', async () => {
    const product = await admin.product({ name: '改名前', product_group_id: category.id, pricing: { monthly: '10.00' } });
    const updated = await admin.call('put', `/api/v2/admin/products/${product.id}`, { name: '改名后', product_type: 'cdn', pricing: { monthly: '12.50', quarterly: '36' } });
    expect(updated.base).toMatchObject({ name: '改名后', product_type: 'cloud_server', product_group_id: category.id });
    expect(updated.pricing.prices).toEqual({ monthly: '12.50', quarterly: '36.00' });
    expect(updated.audit.entries[0]).toMatchObject({ action: 'update', summary: '名称：改名前 → 改名后；价格已修改' });
    const full = await admin.call('get', `/api/v2/admin/catalogue-audit-logs/${updated.audit.entries[0].id}`);
    expect(full.changes).toEqual([
      { field: 'name', label: '名称', old: '改名前', new: '改名后' },
      { field: 'pricing', label: '价格', old: '{"monthly":"10.00"}', new: '{"monthly":"12.50","quarterly":"36.00"}' },
    ]);
    const sameMenu = await admin.call('put', `/api/v2/admin/products/${product.id}`, { first_product_group_id: menu.id });
    expect(sameMenu.base).toMatchObject({ second_product_group_id: group.id, product_group_id: category.id });
    const noCategory = await admin.call('put', `/api/v2/admin/products/${product.id}`, { product_group_id: null });
    expect(noCategory.base).toMatchObject({ second_product_group_id: group.id, product_group_id: null });
    const desk = await admin.menu({ name: '桌面', product_type: 'cloud_desktop' });
    const moved = await admin.call('put', `/api/v2/admin/products/${product.id}`, { first_product_group_id: desk.id });
    expect(moved.base).toMatchObject({ first_product_group_id: desk.id, second_product_group_id: null, product_type: 'cloud_desktop', service_type_code: 'cloud_desktop' });
    const nothing = await admin.call('put', `/api/v2/admin/products/${product.id}`, { name: '改名后' });
    expect(nothing.audit.total).toBe(moved.audit.total);
    expectError(await platform.api.put('/api/v2/admin/products/999999', { token, body: { name: 'x' } }), 40400, 404);
    expectError(await platform.api.put(`/api/v2/admin/products/${product.id}`, { token, body: { pricing: { monthly: { amount: 1 } } } }), 42200, 422);
  });

  it('lists about 20 summary fields with filters and a sort whitelist', async () => {
    const list = await admin.call('get', `/api/v2/admin/products?product_group_id=${category.id}&sort=-price`);
    expect(list.total).toBeGreaterThanOrEqual(1);
    const item = list.list[0];
    expect(Object.keys(item).length).toBeLessThanOrEqual(20);
    for (const key of ['id', 'name', 'display_name', 'product_type', 'product_type_label', 'group_path', 'primary_price', 'stock_status', 'status', 'sort_order', 'updated_at']) {
      expect(item).toHaveProperty(key);
    }
    await admin.product({ name: '便宜货', product_group_id: category.id, pricing: { monthly: '0.10' }, stock_control: true, stock_qty: 0, status: 'hidden' });
    const cheap = await admin.call('get', `/api/v2/admin/products?product_group_id=${category.id}&sort=price`);
    expect(cheap.list[0]).toMatchObject({ name: '便宜货', primary_price: '0.10', stock_status: 'out_of_stock', status: 'hidden' });
    const hidden = await admin.call('get', '/api/v2/admin/products?status=hidden&keyword=便宜');
    expect(hidden.list.map((p: { name: string }) => p.name)).toEqual(['便宜货']);
    const other = await admin.call('get', '/api/v2/admin/products?product_type=other');
    expect(other.list.every((p: { product_type: string; plugin_key: string }) => p.product_type === 'other' && p.plugin_key === 'acme_cloud')).toBe(true);
    expectError(await platform.api.get('/api/v2/admin/products', { token, query: { sort: 'description' } }), 42200, 422);
  });

  it('serves the config options with their choices and prices as flat lists', async () => {
    const product = await admin.product({ name: '配置项', first_product_group_id: menu.id, config_options: [cpuOption, { field: 'ip_num', name: 'IP', option_type: 4, qty_minimum: 1, qty_maximum: 4, parameter: '88', unit: '个' }] });
    const options = await admin.call('get', `/api/v2/admin/products/${product.id}/config-options`);
    expect(options.items).toEqual([
      { field: 'cpu', name: 'CPU', option_type: 6, input: 'choice', hidden: false, qty_minimum: 0, qty_maximum: 0, unit: '', default_value: 1, choice_count: 2, parameter: '' },
      { field: 'ip_num', name: 'IP', option_type: 4, input: 'quantity', hidden: false, qty_minimum: 1, qty_maximum: 4, unit: '个', default_value: 1, choice_count: 0, parameter: '88' },
    ]);
    expect(options.choices[1]).toEqual({ field: 'cpu', id: 2, value: '2', label: '2 核', family: null, version: null, qty_minimum: null, qty_maximum: null, pricing: { monthly: '10.00' } });
  });

  it('soft-deletes: the product leaves lists and detail but its row stays', async () => {
    const product = await admin.product({ name: '要删除', first_product_group_id: menu.id });
    expect(await admin.call('del', `/api/v2/admin/products/${product.id}`)).toBeNull();
    expectError(await platform.api.get(`/api/v2/admin/products/${product.id}`, { token }), 40400, 404);
    expect((await admin.call('get', '/api/v2/admin/products?keyword=要删除')).total).toBe(0);
    const row = await platform.deps.db.models.Product.findByPk(product.id);
    expect(row?.deleted_at).toBeInstanceOf(Date);
    expectError(await platform.api.del(`/api/v2/admin/products/${product.id}`, { token }), 40400, 404);
  });
});

describe('bulk binding to a category', () => {
  it('binds an ids array all or nothing, re-deriving group, menu and type', async () => {
    const web = await admin.menu({ name: '主机', product_type: 'web_hosting' });
    const webGroup = await admin.group(web.id);
    const webCategory = await admin.category(webGroup.id);
    const a = await admin.product({ name: '待绑定 A', first_product_group_id: menu.id });
    const b = await admin.product({ name: '待绑定 B', product_group_id: category.id });
    const comma = await platform.api.post('/api/v2/admin/products/category-bindings', { token, body: { ids: `${a.id},${b.id}`, product_group_id: webCategory.id } });
    expectError(comma, 42200, 422);
    expect(Object.keys(comma.body.data.errors)).toEqual(['ids']);
    const unknown = await platform.api.post('/api/v2/admin/products/category-bindings', { token, body: { ids: [a.id, 999_999], product_group_id: webCategory.id } });
    expectError(unknown, 42200, 422);
    expect(unknown.body.data.errors.ids[0]).toContain('999999');
    expect((await admin.call('get', `/api/v2/admin/products/${a.id}`)).base.product_type).toBe('cloud_server');
    // The type is derived from the category, never taken from the body: a body naming it is refused.
    const typed = await platform.api.post('/api/v2/admin/products/category-bindings', { token, body: { ids: [a.id, b.id], product_group_id: webCategory.id, product_type: 'cdn' } });
    expectError(typed, 42200, 422);
    expect(Object.keys(typed.body.data.errors)).toEqual(['product_type']);
    const done = await admin.call('post', '/api/v2/admin/products/category-bindings', { ids: [a.id, b.id], product_group_id: webCategory.id });
    expect(done).toEqual({ ids: [a.id, b.id], product_group_id: webCategory.id, updated: 2 });
    for (const id of [a.id, b.id]) {
      const detail = await admin.call('get', `/api/v2/admin/products/${id}`);
      expect(detail.base).toMatchObject({ first_product_group_id: web.id, second_product_group_id: webGroup.id, product_group_id: webCategory.id, product_type: 'web_hosting', service_type_code: 'web_hosting' });
      expect(detail.audit.entries[0]).toMatchObject({ action: 'bind_category' });
    }
    const otherGroup = await admin.group(otherMenu.id);
    const otherCategory = await admin.category(otherGroup.id);
    const refused = await platform.api.post('/api/v2/admin/products/category-bindings', { token, body: { ids: [a.id], product_group_id: otherCategory.id } });
    expect(Object.keys(refused.body.data.errors)).toEqual(['product_group_id']);
  });
});

describe('upstream plugin references', () => {
  it('refuses to uninstall an upstream plugin bound to products without force, and a forced uninstall unbinds them', async () => {
    const res = await platform.api.del(`/api/v2/admin/integration-plugins/${enabledPlugin}`, { token });
    expectError(res, 40901, 409);
    expect(res.body.message).toContain('商品上游绑定');
    expect(res.body.data.references).toEqual([{ name: 'product_upstream_bindings', label: '商品上游绑定', count: expect.any(Number) }]);
    const forced = await platform.api.del(`/api/v2/admin/integration-plugins/${enabledPlugin}`, { token, query: { force: 1 } });
    expect(forced.body.code).toBe(0);
    expect(await platform.deps.db.models.ProductUpstreamBinding.count({ where: { plugin_id: enabledPlugin } })).toBe(0);
    const other = await admin.call('get', '/api/v2/admin/products?product_type=other');
    const detail = await admin.call('get', `/api/v2/admin/products/${other.list[0].id}`);
    expect(detail.upstream_binding).toMatchObject({ bound: true, plugin_id: null, plugin_key: null });
    expect(detail.provisioning).toMatchObject({ resolved_purchase_template: null, purchasable_online: false });
  });
});
