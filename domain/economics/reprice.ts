import type { Actor } from '../../lib/actor.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
import type { PricingMap } from '../catalogue/pricing-map.js';
import type { DomainDeps } from '../deps.js';
import { applyPriceRule, applyPriceRuleToOptions, parsePriceRule } from '../suppliers/price-rule.js';
import { type BoundProduct, listBoundProducts, readUpstreamPrices, type UpstreamPrices } from './price-points.js';
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
 * is refused: re-pricing it at cost would not be a repair. The rule and the prices are the first
 * binding's (the spec's binding, where an import writes them); the further bindings' points are
 * recorded again too against our new prices, each from its supplier's prices read before the
 * transaction (one that cannot be read is left to the next hourly check).
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
  const further: Array<{ bound: BoundProduct; upstream: UpstreamPrices }> = [];
  const bindings = await listBoundProducts(deps, [productId]);
  const first = bindings.find((b) => b.binding_id === null);
  if (!first) throw validationError({ product_id: ['该商品未绑定供应商的上游商品，无法按加价规则重新定价'] });
  for (const alternate of bindings.filter((b) => b.binding_id !== null)) {
    try {
      further.push({ bound: alternate, upstream: await readUpstreamPrices(deps, alternate) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      deps.logger.warn({ product_id: productId, binding_id: alternate.binding_id, supplier_id: alternate.supplier_id }, 'reprice: a further binding’s upstream prices could not be read; its points wait for the next drift check');
    }
  }
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
    const ours = { name: product.name, pricing, config_options: configOptions };
    let resolved = (await recordProductDrift(deps, { ...first, ...ours, ...bound, price_rule: binding.price_rule }, upstream, { transaction })).resolved;
    for (const other of further) resolved += (await recordProductDrift(deps, { ...other.bound, ...ours }, other.upstream, { transaction })).resolved;
    return { product_id: product.id, price_rule: rule, before, pricing, resolved };
  });
}
