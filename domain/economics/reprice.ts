import type { Actor } from '../../lib/actor.js';
import { notFound, validationError } from '../../lib/errors.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
import type { PricingMap } from '../catalogue/pricing-map.js';
import type { DomainDeps } from '../deps.js';
import { applyPriceRule, applyPriceRuleToOptions, parsePriceRule } from '../suppliers/price-rule.js';
import { readUpstreamPrices } from './price-points.js';
import { recordProductDrift } from './price-drift.js';

export type RepriceOutcome = {
  product_id: number;
  price_rule: { type: 'percent' | 'fixed'; value: string };
  before: PricingMap;
  pricing: PricingMap;
  resolved: number;
};

/**
 * Re-prices an imported product from its upstream's current prices with the binding's import
 * price rule (`domain/suppliers/price-rule.ts`: percent on every amount, fixed on base prices):
 * base prices of the periods we sell that the upstream still sells (all of the upstream's when
 * none is left) and every option, as an import would. In the same transaction: the catalogue
 * audit row, the cache drop, and the product's drift points recorded again, which resolves the
 * findings the new prices answer (and so ends a hold). A bound product without an import rule
 * is refused: re-pricing it at cost would not be a repair.
 */
export async function repriceProduct(deps: DomainDeps, productId: number, operator: Actor): Promise<RepriceOutcome> {
  const { Product, ProductUpstreamBinding, CatalogueAuditLog } = deps.db.models;
  const product = await Product.findOne({ where: { id: productId, deleted_at: null } });
  if (!product) throw notFound('商品不存在');
  const binding = await ProductUpstreamBinding.findByPk(productId);
  if (!binding || binding.supplier_id === null || !/^[1-9][0-9]{0,9}$/.test(binding.upstream_product_id)) {
    throw validationError({ product_id: ['该商品未绑定供应商的上游商品，无法按加价规则重新定价'] });
  }
  if (typeof binding.price_rule['type'] !== 'string') throw validationError({ product_id: ['该商品没有导入加价规则，请在商品中手动调整价格'] });
  const rule = parsePriceRule(binding.price_rule);
  const bound = { supplier_id: binding.supplier_id, upstream_product_id: binding.upstream_product_id };
  const upstream = await readUpstreamPrices(deps, bound);
  const offered = Object.keys(product.pricing).filter((period) => upstream.pricing[period as keyof PricingMap] !== undefined);
  const base: PricingMap = offered.length > 0 ? Object.fromEntries(offered.map((p) => [p, upstream.pricing[p as keyof PricingMap]])) : upstream.pricing;
  const pricing = applyPriceRule(base, rule);
  const configOptions = applyPriceRuleToOptions(upstream.config_options, rule);
  const before = { ...product.pricing };
  return deps.db.sequelize.transaction(async (transaction) => {
    await product.update({ pricing, config_options: configOptions }, { transaction });
    await CatalogueAuditLog.create(
      {
        entity_type: 'product',
        entity_id: product.id,
        action: 'reprice',
        changes: { price_rule: rule, before: { pricing: before }, after: { pricing } },
        operator_id: operator.id,
        operator_name: operator.name,
      },
      { transaction },
    );
    await publishCatalogueChange(deps, transaction);
    const drift = await recordProductDrift(
      deps,
      { product_id: product.id, name: product.name, ...bound, price_rule: binding.price_rule, pricing, config_options: configOptions },
      upstream,
      { transaction },
    );
    return { product_id: product.id, price_rule: rule, before, pricing, resolved: drift.resolved };
  });
}
