import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '../../../../db/sql.js';
import { createSupplier } from '../../../../domain/suppliers/suppliers.js';
import { SANDBOX_CREDENTIALS } from '../../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../../sandbox/upstream-finance/server.js';
import { expectError } from '../../../helpers/http.js';
import { createTestSupplier } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from '../../../helpers/upstream-supplier.js';

/**
 * The admin routes of a product's upstream bindings (issue #38): the list in order in the detail
 * and its own route, the further bindings added, changed, reordered and removed against two real
 * upstream sandboxes, the routing policy, refused input in Chinese, and the audit of each write.
 */
let platform: TestPlatform;
let sandboxA: UpstreamSandbox;
let sandboxB: UpstreamSandbox;
let token: string;
let supplierA: number;
let supplierB: number;
let productId: number;

const products = '/api/v2/admin/products';

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox: sandboxA } = await startUpstreamForPlatform(platform));
  sandboxB = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  token = await platform.rootToken();
  supplierA = (await createTestSupplier(platform, sandboxA.baseUrl, 'route-a')).id;
  supplierB = (await createTestSupplier(platform, sandboxB.baseUrl, 'route-b')).id;
  const { category } = await createCategory(platform);
  const pulled = await platform.api.post(`/api/v2/admin/suppliers/${supplierA}/product-pulls`, {
    token,
    body: { upstream_product_ids: [101], product_group_id: category.id, price_rule: { type: 'percent', value: '20' }, status: 'active' },
  });
  productId = pulled.body.data.imported[0].product_id as number;
});
afterAll(async () => {
  await sandboxA?.stop();
  await sandboxB?.stop();
  await platform?.close();
});

const bindings = () => `${products}/${productId}/upstream-bindings`;

async function auditRows(): Promise<Array<{ action: string; changes: Record<string, { old: unknown; new: unknown }> }>> {
  return sqlRows(platform.deps, `SELECT action, changes FROM catalogue_audit_logs WHERE entity_type = 'product' AND entity_id = $1 ORDER BY id`, [productId]);
}

async function adminAuditCount(): Promise<number> {
  const rows = await sqlRows<{ n: number }>(
    platform.deps,
    `SELECT count(*)::int AS n FROM admin_audit_logs WHERE source = 'request' AND method = 'POST' AND route = $1 AND status = 200 AND target_id = $2`,
    ['/api/v2/admin/products/{product}/upstream-bindings', String(productId)],
  );
  return rows[0]?.n ?? 0;
}

describe('a product’s upstream bindings', () => {
  it('lists the first binding alone, with the default policy, in the detail and the list', async () => {
    const detail = await platform.api.get(`${products}/${productId}`, { token });
    expect(detail.body.data.upstream_binding).toMatchObject({
      supplier_id: supplierA,
      upstream_product_id: '101',
      routing_policy: 'priority',
      bindings: [{ id: null, priority: 0, first: true, supplier_id: supplierA, upstream_product_id: '101', price_rule_type: 'percent', price_rule_value: '20' }],
      bindings_path: `${products}/${productId}/upstream-bindings`,
    });
    const list = await platform.api.get(bindings(), { token });
    expect(list.body.data).toMatchObject({ total: 1, page: 1, list: [{ id: null, priority: 0, supplier_code: 'route-a' }] });
  });

  it('adds further bindings at the end, on another supplier and on the same one', async () => {
    const before = await adminAuditCount();
    const added = await platform.api.post(bindings(), {
      token,
      body: { supplier_id: supplierB, upstream_product_id: '101', config_template: { area: 'hk' }, price_rule: { type: 'fixed', value: '5' } },
    });
    expect(added.body.data.bindings.map((b: { priority: number; supplier_id: number }) => [b.priority, b.supplier_id])).toEqual([
      [0, supplierA],
      [1, supplierB],
    ]);
    expect(added.body.data.bindings[1]).toMatchObject({ provider_key: 'upstream_finance_api', plugin_key: 'upstream_finance', config_template_json: '{"area":"hk"}', price_rule_type: 'fixed' });
    const again = await platform.api.post(bindings(), { token, body: { supplier_id: supplierA, upstream_product_id: '102' } });
    expect(again.body.data.bindings.map((b: { upstream_product_id: string }) => b.upstream_product_id)).toEqual(['101', '101', '102']);
    const audit = await auditRows();
    expect(audit.at(-1)).toMatchObject({ action: 'update', changes: { upstream_bindings: { new: [{ priority: 0 }, { priority: 1 }, { priority: 2 }] } } });
    expect(await adminAuditCount()).toBe(before + 2);
  });

  it('refuses bad input in Chinese and changes nothing', async () => {
    const before = (await platform.api.get(bindings(), { token })).body.data.list;
    expectError(await platform.api.post(bindings(), { token, body: { supplier_id: supplierB, upstream_product_id: 'abc' } }), 42200, 422);
    expectError(await platform.api.post(bindings(), { token, body: { supplier_id: 999_999, upstream_product_id: '101' } }), 42200, 422);
    const unknown = await platform.api.post(bindings(), { token, body: { supplier_id: supplierB, upstream_product_id: '999' } });
    expectError(unknown, 42200, 422);
    expect(JSON.stringify(unknown.body.data)).toMatch(/upstream_product_id/);
    const twin = await platform.api.post(bindings(), { token, body: { supplier_id: supplierA, upstream_product_id: '101' } });
    expectError(twin, 42200, 422);
    expect(twin.body.message).toMatch(/\p{Script=Han}/u);
    expectError(await platform.api.post(bindings(), { token, body: { supplier_id: supplierB, upstream_product_id: '103', config_template: { a: { b: 1 } } } }), 42200, 422);
    expectError(await platform.api.post(bindings(), { token, body: { supplier_id: supplierB, upstream_product_id: '103', price_rule: { type: 'double', value: '1' } } }), 42200, 422);
    expectError(await platform.api.put(`${products}/${productId}/upstream-routing`, { token, body: { routing_policy: 'cheapest' } }), 42200, 422);
    expectError(await platform.api.post(`${products}/999999/upstream-bindings`, { token, body: { supplier_id: supplierB, upstream_product_id: '101' } }), 40400, 404);
    expectError(await platform.api.put(`${bindings()}/999999`, { token, body: { upstream_product_id: '102' } }), 40400, 404);
    // A disabled supplier cannot be bound.
    const disabled = await createSupplier(platform.deps, {
      code: 'route-off',
      name: '停用供应商',
      interface_type: 'upstream_finance_api',
      base_url: sandboxB.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
      status: 'disabled',
    });
    expectError(await platform.api.post(bindings(), { token, body: { supplier_id: disabled.id, upstream_product_id: '103' } }), 42200, 422);
    expect((await platform.api.get(bindings(), { token })).body.data.list).toEqual(before);
  });

  it('refuses further bindings for a product without its first binding', async () => {
    const { menu } = await createCategory(platform);
    const bare = await platform.deps.db.models.Product.create({
      first_product_group_id: menu.id,
      name: '无绑定',
      product_type: 'cloud_server',
      service_type_code: 'cloud_server',
      pricing: { monthly: '1.00' },
      config_options: [],
    });
    expectError(await platform.api.post(`${products}/${bare.id}/upstream-bindings`, { token, body: { supplier_id: supplierB, upstream_product_id: '101' } }), 42200, 422);
  });

  it('changes, reorders and removes further bindings, keeping priorities 1, 2, …', async () => {
    const list = (await platform.api.get(bindings(), { token })).body.data.list as Array<{ id: number | null; supplier_id: number; upstream_product_id: string }>;
    const [, onB, onA] = list;
    // B's 102 is not bound yet: allowed; then A's 102 moved to B would bind B's 102 twice.
    const changed = await platform.api.put(`${bindings()}/${onB!.id}`, { token, body: { upstream_product_id: '102', config_template: { area: 'us' } } });
    expect(changed.body.data.bindings[1]).toMatchObject({ id: onB!.id, priority: 1, supplier_id: supplierB, upstream_product_id: '102', config_template_json: '{"area":"us"}' });
    expectError(await platform.api.put(`${bindings()}/${onA!.id}`, { token, body: { supplier_id: supplierB } }), 42200, 422);

    expectError(await platform.api.post(`${bindings()}/reorders`, { token, body: { ids: [onA!.id] } }), 42200, 422);
    expectError(await platform.api.post(`${bindings()}/reorders`, { token, body: { ids: [onA!.id, onA!.id] } }), 42200, 422);
    const reordered = await platform.api.post(`${bindings()}/reorders`, { token, body: { ids: [onA!.id, onB!.id] } });
    expect(reordered.body.data.bindings.map((b: { id: number | null; priority: number }) => [b.id, b.priority])).toEqual([
      [null, 0],
      [onA!.id, 1],
      [onB!.id, 2],
    ]);

    const removed = await platform.api.del(`${bindings()}/${onA!.id}`, { token });
    expect(removed.body.data.bindings.map((b: { id: number | null; priority: number }) => [b.id, b.priority])).toEqual([
      [null, 0],
      [onB!.id, 1],
    ]);
    expectError(await platform.api.del(`${bindings()}/${onA!.id}`, { token }), 40400, 404);
  });

  it('sets the routing policy, shown in the detail, audited once per change', async () => {
    const set = await platform.api.put(`${products}/${productId}/upstream-routing`, { token, body: { routing_policy: 'lowest_cost' } });
    expect(set.body.data).toMatchObject({ product_id: productId, routing_policy: 'lowest_cost', routing_policy_label: expect.stringMatching(/成本/) });
    await platform.api.put(`${products}/${productId}/upstream-routing`, { token, body: { routing_policy: 'lowest_cost' } });
    const detail = await platform.api.get(`${products}/${productId}`, { token });
    expect(detail.body.data.upstream_binding.routing_policy).toBe('lowest_cost');
    const changes = (await auditRows()).filter((r) => 'upstream_routing' in r.changes);
    expect(changes).toEqual([{ action: 'update', changes: { upstream_routing: { old: 'priority', new: 'lowest_cost' } } }]);
  });

  it('leaves the first binding to the product routes: a product write changes it, the further ones stay', async () => {
    const res = await platform.api.put(`${products}/${productId}`, { token, body: { upstream_product_id: '103' } });
    expect(res.body.data.upstream_binding).toMatchObject({ upstream_product_id: '103', supplier_id: supplierA });
    expect(res.body.data.upstream_binding.bindings.map((b: { upstream_product_id: string }) => b.upstream_product_id)).toEqual(['103', '102']);
    const row = await platform.deps.db.models.ProductUpstreamBinding.findByPk(productId);
    expect(row).toMatchObject({ product_id: productId, upstream_product_id: '103', price_rule: { type: 'percent', value: '20' } });
  });
});
