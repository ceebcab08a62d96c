import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '../../../db/sql.js';
import { productBindings } from '../../../domain/catalogue/product-bindings.js';
import { deleteSupplier } from '../../../domain/suppliers/suppliers.js';
import { createTestSupplier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

/**
 * Several bindings per product (migration 0046): the first binding stays the product's own row
 * (written by product id, as the release before writes it), the further ones are ordered by
 * priority, and `productBindings` reads them all in order.
 */
let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let pluginId: number;
let supplierA: number;
let supplierB: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox, pluginId } = await startUpstreamForPlatform(platform));
  supplierA = (await createTestSupplier(platform, sandbox.baseUrl, 'bind-a')).id;
  supplierB = (await createTestSupplier(platform, sandbox.baseUrl, 'bind-b')).id;
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

async function product(): Promise<number> {
  const { menu, group, category } = await createCategory(platform);
  const row = await platform.deps.db.models.Product.create({
    first_product_group_id: menu.id,
    second_product_group_id: group.id,
    product_group_id: category.id,
    name: '绑定测试',
    product_type: 'cloud_server',
    service_type_code: 'cloud_server',
    pricing: { monthly: '100.00' },
    config_options: [],
  });
  return row.id;
}

describe('productBindings', () => {
  it('answers the first binding, then the further ones by priority, with the policy', async () => {
    const id = await product();
    // The first binding written the way the release before writes it: an upsert by product id.
    await sqlRows(
      platform.deps,
      `INSERT INTO product_upstream_bindings (product_id, plugin_id, supplier_id, provider_key, upstream_product_id) VALUES ($1, $2, $3, 'upstream_finance_api', '101')
       ON CONFLICT (product_id) DO UPDATE SET upstream_product_id = EXCLUDED.upstream_product_id`,
      [id, pluginId, supplierA],
    );
    const { ProductUpstreamAlternate } = platform.deps.db.models;
    await ProductUpstreamAlternate.create({ product_id: id, priority: 2, supplier_id: supplierA, plugin_id: pluginId, upstream_product_id: '103' });
    await ProductUpstreamAlternate.create({ product_id: id, priority: 1, supplier_id: supplierB, plugin_id: pluginId, upstream_product_id: '102' });
    const read = await productBindings(platform.deps, id);
    expect(read?.policy).toBe('priority');
    expect(read?.bindings.map((b) => [b.id === null, b.priority, b.supplier_id, b.upstream_product_id])).toEqual([
      [true, 0, supplierA, '101'],
      [false, 1, supplierB, '102'],
      [false, 2, supplierA, '103'],
    ]);
    expect(read?.bindings[1]).toMatchObject({ supplier_code: 'bind-b', supplier_status: 'active', plugin_key: 'upstream_finance' });

    // A reorder is one statement (the priority key is deferred).
    await sqlRows(platform.deps, 'UPDATE product_upstream_alternates SET priority = 3 - priority WHERE product_id = $1', [id]);
    expect((await productBindings(platform.deps, id))?.bindings.map((b) => b.upstream_product_id)).toEqual(['101', '103', '102']);

    // The release before upserts the first binding by product id: the further ones stay.
    await sqlRows(platform.deps, `UPDATE product_upstream_bindings SET upstream_product_id = '104' WHERE product_id = $1`, [id]);
    expect((await productBindings(platform.deps, id))?.bindings.map((b) => b.upstream_product_id)).toEqual(['104', '103', '102']);
  });

  it('answers an empty list for a product without bindings, and null for no product', async () => {
    const id = await product();
    await platform.deps.db.models.Product.update({ upstream_routing: 'lowest_cost' }, { where: { id } });
    expect(await productBindings(platform.deps, id)).toEqual({ productId: id, policy: 'lowest_cost', bindings: [] });
    expect(await productBindings(platform.deps, 999_999)).toBeNull();
  });

  it('refuses a second binding at the same priority, or the same upstream product twice, and a bad policy', async () => {
    const id = await product();
    const { ProductUpstreamAlternate } = platform.deps.db.models;
    await ProductUpstreamAlternate.create({ product_id: id, priority: 1, supplier_id: supplierB, plugin_id: pluginId, upstream_product_id: '102' });
    await expect(ProductUpstreamAlternate.create({ product_id: id, priority: 1, supplier_id: supplierA, plugin_id: pluginId, upstream_product_id: '103' })).rejects.toThrow();
    await expect(ProductUpstreamAlternate.create({ product_id: id, priority: 2, supplier_id: supplierB, plugin_id: pluginId, upstream_product_id: '102' })).rejects.toThrow();
    await expect(ProductUpstreamAlternate.create({ product_id: id, priority: 0, supplier_id: supplierB, plugin_id: pluginId, upstream_product_id: '105' })).rejects.toThrow();
    await expect(sqlRows(platform.deps, `UPDATE products SET upstream_routing = 'cheapest' WHERE id = $1`, [id])).rejects.toThrow();
  });

  it('refuses to delete a supplier named by a further binding only', async () => {
    const id = await product();
    const other = (await createTestSupplier(platform, sandbox.baseUrl, 'bind-c')).id;
    await platform.deps.db.models.ProductUpstreamAlternate.create({ product_id: id, priority: 1, supplier_id: other, plugin_id: pluginId, upstream_product_id: '102' });
    await expect(deleteSupplier(platform.deps, other)).rejects.toMatchObject({ code: 40901 });
  });
});
