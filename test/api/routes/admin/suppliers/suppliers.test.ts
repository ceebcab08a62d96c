import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS } from '../../../../../sandbox/launcher.js';
import { expectError } from '../../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../../helpers/platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from '../../../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let token: string;
let supplierId: number;

const base = '/api/v2/admin/suppliers';

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  token = await platform.rootToken();
  const res = await platform.api.post(base, {
    token,
    body: {
      code: 'hk-cloud',
      name: '香港云',
      interface_type: 'upstream_finance_api',
      base_url: sandbox.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    },
  });
  expect(res.body.code).toBe(0);
  supplierId = res.body.data.id;
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('admin suppliers', () => {
  it('stores the api key sealed and answers only has_api_key', async () => {
    const detail = await platform.api.get(`${base}/${supplierId}`, { token });
    expect(detail.body.data).toMatchObject({ code: 'hk-cloud', interface_type: 'upstream_finance_api', has_api_key: true, status: 'active' });
    expect(detail.body.data).not.toHaveProperty('api_key');
    const row = await platform.deps.db.models.Supplier.findByPk(supplierId);
    expect(row?.api_key_sealed).not.toContain(SANDBOX_CREDENTIALS.upstream.apiKey);
    expect(platform.deps.secretBox.open(row?.api_key_sealed ?? '')).toBe(SANDBOX_CREDENTIALS.upstream.apiKey);
  });

  it('keeps the key when an update sends it empty', async () => {
    const res = await platform.api.put(`${base}/${supplierId}`, { token, body: { name: '香港云 CN2', api_key: '' } });
    expect(res.body.data).toMatchObject({ name: '香港云 CN2', has_api_key: true });
    const balance = await platform.api.get(`${base}/${supplierId}/balance`, { token });
    expect(balance.body.data).toEqual({ balance: '10000.00', currency: 'CNY' });
  });

  it('refuses a duplicate code and an interface type no installed plugin serves', async () => {
    const body = { code: 'hk-cloud', name: 'x', interface_type: 'upstream_finance_api', base_url: sandbox.baseUrl, account: 'a', api_key: 'k-123456789' };
    expectError(await platform.api.post(base, { token, body }), 40900, 409);
    const panel = await platform.api.post(base, { token, body: { ...body, code: 'panel', interface_type: 'hosting_panel_api' } });
    expectError(panel, 42200, 422);
    expect(Object.keys(panel.body.data.errors)).toEqual(['interface_type']);
    expect(await platform.deps.db.models.Supplier.count()).toBe(1);
  });

  it('tests the connection and lists the upstream catalogue', async () => {
    const test = await platform.api.post(`${base}/${supplierId}/connection-test`, { token });
    expect(test.body.data.success).toBe(true);
    const catalogue = await platform.api.get(`${base}/${supplierId}/upstream-products`, { token, query: { page_size: 100 } });
    expect(catalogue.body.data.list.map((p: { id: number }) => p.id)).toEqual(expect.arrayContaining([101, 102, 201, 301, 401]));
    expect(catalogue.body.data).toMatchObject({ page: 1, page_size: 100, total: catalogue.body.data.list.length });
    const second = await platform.api.get(`${base}/${supplierId}/upstream-products`, { token, query: { page: 2, page_size: 2 } });
    expect(second.body.data).toMatchObject({ page: 2, page_size: 2, total: catalogue.body.data.total, list: catalogue.body.data.list.slice(2, 4) });
  });

  it('never writes the api key into the plugin runtime log', async () => {
    const logs = await platform.deps.db.models.PluginRuntimeLog.findAll();
    expect(logs.length).toBeGreaterThan(0);
    for (const log of logs) {
      expect(`${log.request_summary}${log.response_summary}${log.error_detail}`).not.toContain(SANDBOX_CREDENTIALS.upstream.apiKey);
    }
  });

  it('imports upstream products into a category with the markup, the menu type and the real provider key', async () => {
    const { menu, category } = await createCategory(platform, 'cloud_server');
    // Warm the storefront cache with the empty category: the import must clear it.
    expect((await platform.api.get('/api/v2/site/products', { query: { product_group_id: category.id } })).body.data.total).toBe(0);
    const res = await platform.api.post(`${base}/${supplierId}/product-pulls`, {
      token,
      body: { upstream_product_ids: [101, 999], product_group_id: category.id, price_rule: { type: 'percent', value: '20' }, status: 'active' },
    });
    expect(res.body.data.imported).toHaveLength(1);
    expect(res.body.data.skipped).toEqual([{ upstream_product_id: 999, reason: expect.stringMatching(/\p{Script=Han}/u) }]);
    const productId = res.body.data.imported[0].product_id as number;
    const product = await platform.deps.db.models.Product.findByPk(productId);
    expect(product).toMatchObject({ first_product_group_id: menu.id, product_type: 'cloud_server', service_type_code: 'cloud_server', stock_control: true, stock_qty: 50 });
    expect(product?.pricing.monthly).toBe('70.80'); // 59.00 × 1.2
    const os = product?.config_options.find((o) => o.field === 'os');
    expect(os?.sub.every((s) => /^[^^]+\^/.test(s.version ?? ''))).toBe(true);
    const windows = os?.sub.find((s) => s.version?.startsWith('Windows'));
    expect(windows?.pricing.monthly).toBe('24.00'); // 20.00 × 1.2
    const binding = await platform.deps.db.models.ProductUpstreamBinding.findByPk(productId);
    expect(binding).toMatchObject({ supplier_id: supplierId, provider_key: 'upstream_finance_api', upstream_product_id: '101' });
    const listed = await platform.api.get('/api/v2/site/products', { query: { product_group_id: category.id } });
    expect(listed.body.data.list.map((p: { id: number }) => p.id)).toEqual([productId]);
    const audit = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: 'product', entity_id: productId } });
    expect(audit.body.data.list[0]).toMatchObject({ action: 'import', action_label: '从供应商导入' });
    expect(audit.body.data.list[0].summary).toContain('上游商品编号：空 → 101');

    const again = await platform.api.post(`${base}/${supplierId}/product-pulls`, { token, body: { upstream_product_ids: [101], product_group_id: category.id } });
    expect(again.body.data.imported).toEqual([]);
    expect(again.body.data.skipped[0].reason).toContain(String(productId));

    await product?.update({ stock_qty: 3, config_options: [] });
    const sync = await platform.api.post(`${base}/${supplierId}/products/${productId}/sync`, { token });
    expect(sync.body.data).toMatchObject({ product_id: productId, stock_qty: 50 });
    expect(sync.body.data.option_count).toBeGreaterThan(3);

    expectError(await platform.api.del(`${base}/${supplierId}`, { token }), 40901, 409);
  });

  it('binds local products in a batch by an ids array, never a comma string', async () => {
    const { menu, group, category } = await createCategory(platform, 'bare_metal');
    const { Product } = platform.deps.db.models;
    const make = () =>
      Product.create({
        first_product_group_id: menu.id,
        second_product_group_id: group.id,
        product_group_id: category.id,
        name: '独立服务器',
        product_type: 'bare_metal',
        service_type_code: 'bare_metal',
        pricing: { monthly: '999.00' },
        config_options: [],
      });
    const [a, b] = [await make(), await make()];
    expectError(await platform.api.post(`${base}/${supplierId}/bindings`, { token, body: { ids: `${a.id},${b.id}`, upstream_product_id: 201 } }), 42200, 422);
    const res = await platform.api.post(`${base}/${supplierId}/bindings`, { token, body: { ids: [a.id, b.id], upstream_product_id: 201 } });
    expect(res.body.data.bound).toEqual([a.id, b.id]);
    const bindings = await platform.deps.db.models.ProductUpstreamBinding.findAll({ where: { product_id: [a.id, b.id] } });
    expect(bindings.map((x) => x.upstream_product_id)).toEqual(['201', '201']);
    const missing = await platform.api.post(`${base}/${supplierId}/bindings`, { token, body: { ids: [a.id], upstream_product_id: 9999 } });
    expectError(missing, 40930, 409);
  });
});
