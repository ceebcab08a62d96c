import { addProductAlternate } from '../../domain/catalogue/product-alternates.js';
import type { PriceRule } from '../../domain/suppliers/price-rule.js';
import { pullSupplierProducts } from '../../domain/suppliers/product-import.js';
import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { createTestSupplier } from './lifecycle.js';
import type { TestPlatform } from './platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from './upstream-supplier.js';

export type TwoSupplierProduct = {
  sandboxA: UpstreamSandbox;
  sandboxB: UpstreamSandbox;
  supplierA: number;
  supplierB: number;
  /** The product imported from A's upstream product 101 (74.00 a month there), 20 % on its prices. */
  productId: number;
  /** Its further binding: B's 101, the same markup. */
  alternateId: number;
  stop(): Promise<void>;
};

/**
 * A product sold from two upstream sandboxes (issue #38): the upstream_finance plugin against
 * sandbox A, suppliers on A and B (named `供应商 <code>`), A's 101 imported with a
 * 20 % markup, and B's 101 bound as the further binding.
 */
export async function twoSupplierProduct(platform: TestPlatform, codes: [string, string]): Promise<TwoSupplierProduct> {
  const { sandbox: sandboxA } = await startUpstreamForPlatform(platform);
  const sandboxB = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  const supplierA = (await createTestSupplier(platform, sandboxA.baseUrl, codes[0])).id;
  const supplierB = (await createTestSupplier(platform, sandboxB.baseUrl, codes[1])).id;
  const { category } = await createCategory(platform);
  const priceRule: PriceRule = { type: 'percent', value: '20' };
  const pulled = await pullSupplierProducts(platform.deps, supplierA, { upstream_product_ids: [101], product_group_id: category.id, price_rule: priceRule, status: 'active' }, SYSTEM_ACTOR);
  const productId = pulled.imported[0]!.product_id;
  const alternateId = (await addProductAlternate(platform.deps, productId, { supplier_id: supplierB, upstream_product_id: '101', price_rule: priceRule }, SYSTEM_ACTOR)).id;
  return {
    sandboxA,
    sandboxB,
    supplierA,
    supplierB,
    productId,
    alternateId,
    async stop() {
      await sandboxA.stop();
      await sandboxB.stop();
    },
  };
}
