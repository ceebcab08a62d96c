import type { Transaction } from 'sequelize';
import { sqlOne } from '../../db/sql.js';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { type CURRENCY } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import type { BillingPeriod } from './billing-periods.js';
import type { ConfigOptionItem } from './config-options.js';
import type { PricingMap } from './pricing-map.js';
import { priceSelection, type QuoteLine, type SelectedConfig } from './pricing.js';
import { readPurchaseSchema } from './plugin-schemas.js';
import { resolveTemplates } from './product-types.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { assertNotHeldBelowCost, BELOW_COST_SQL } from '../economics/hold.js';

export type { QuoteLine } from './pricing.js';

export type QuoteRequest = { productId: number; billingPeriod: unknown; config: unknown; quantity: unknown };

export type ProductQuote = {
  product_id: number;
  product_name: string;
  product_type: ProductType;
  billing_period: BillingPeriod;
  quantity: number;
  config: SelectedConfig;
  lines: QuoteLine[];
  total_amount: string;
  currency: typeof CURRENCY;
};

/** A product as the storefront may sell it: what pricing, stock and purchasability need. */
export type ListedProduct = {
  id: number;
  name: string;
  display_name: string;
  product_type: ProductType;
  pricing: PricingMap;
  config_options: ConfigOptionItem[];
  stock_control: boolean;
  stock_qty: number;
  purchase_template: string | null;
  /** `purchase_schema` of the bound, enabled upstream plugin (type `other`), if any. */
  plugin_purchase_schema: { template: string } | null;
  /** An unresolved below-cost upstream price finding (issue #29 §2): held while `economics.hold_below_cost` is on. */
  below_cost: boolean;
};

/**
 * A listed product: not deleted, status `active`, and its menu, group and category (where it has
 * them) visible. Anything else is "absent or unlisted" (40400) to the storefront.
 */
export async function findListedProduct(deps: DomainDeps, productId: number, transaction?: Transaction): Promise<ListedProduct> {
  const row = await sqlOne<ListedProduct>(
    deps,
    `SELECT p.id, p.name, p.display_name, p.product_type, p.pricing, p.config_options, p.stock_control, p.stock_qty,
            p.purchase_template, pl.manifest->'info'->'extra'->'purchase_schema' AS plugin_purchase_schema,
            ${BELOW_COST_SQL} AS below_cost
       FROM products p
       JOIN product_menus m ON m.id = p.first_product_group_id
       LEFT JOIN product_groups g ON g.id = p.second_product_group_id
       LEFT JOIN product_categories c ON c.id = p.product_group_id
       LEFT JOIN product_upstream_bindings b ON b.product_id = p.id
       LEFT JOIN plugins pl ON pl.id = b.plugin_id AND pl.status = 'enabled' AND pl.domain = 'upstream'
      WHERE p.id = $1 AND p.deleted_at IS NULL AND p.status = 'active'
        AND m.is_visible = 1 AND COALESCE(g.is_visible, 1) = 1 AND COALESCE(c.is_visible, 1) = 1`,
    [productId],
    transaction,
  );
  if (!row) throw notFound('商品不存在或已下架');
  return { ...row, plugin_purchase_schema: readPurchaseSchema(row.plugin_purchase_schema) };
}

/**
 * Prices a selection of a listed product (see `priceSelection`, the one pricing function).
 * Refuses, before pricing, a product that cannot be bought online (type `other` without a
 * plugin purchase schema: 40903) and one whose stock cannot cover the quantity (40902).
 * Invoice creation calls this inside its transaction, so quote and invoice always agree; a
 * product held below its upstream cost is refused here too (40904, `assertNotHeldBelowCost`).
 */
export async function quoteProduct(deps: DomainDeps, request: QuoteRequest, options: { transaction?: Transaction } = {}): Promise<ProductQuote> {
  const product = await findListedProduct(deps, request.productId, options.transaction);
  await assertNotHeldBelowCost(deps, product);
  return quoteListedProduct(product, request);
}

export function quoteListedProduct(product: ListedProduct, request: Omit<QuoteRequest, 'productId'>): ProductQuote {
  const plugin = product.plugin_purchase_schema ? { purchaseSchema: product.plugin_purchase_schema, consoleSchema: null } : null;
  const templates = resolveTemplates(product.product_type, { purchase: product.purchase_template }, plugin);
  if (!templates.purchasable_online) {
    throw new AppError(ErrorCode.NOT_PURCHASABLE_ONLINE, '该商品暂不支持在线购买');
  }
  const priced = priceSelection(product, request);
  if (product.stock_control && product.stock_qty < priced.quantity) {
    throw new AppError(ErrorCode.OUT_OF_STOCK, product.stock_qty === 0 ? '该商品已售罄' : `该商品库存不足，当前仅剩 ${product.stock_qty} 件`);
  }
  return {
    product_id: product.id,
    product_name: product.display_name || product.name,
    product_type: product.product_type,
    ...priced,
    currency: 'CNY',
  };
}
