import type { Actor } from '../../lib/actor.js';
import type { Transaction } from 'sequelize';
import { AppError, validationError } from '../../lib/errors.js';
import type { ProductRow } from '../../db/models/catalogue.js';
import type { SupplierRow } from '../../db/models/supplier.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
import { parseConfigOptions } from '../catalogue/config-options.js';
import { parsePricingMap } from '../catalogue/pricing-map.js';
import type { DomainDeps } from '../deps.js';
import { applyPriceRule, applyPriceRuleToOptions, type PriceRule } from './price-rule.js';
import { invokeSupplierPlugin } from './supplier-plugin.js';
import { getSupplier } from './suppliers.js';
import { requireSupplierData } from './upstream-result.js';


/** What `upstream.product_config` answers, already in our item shapes (see the upstream plugin). */
type UpstreamProduct = {
  name: string;
  description: string;
  pricing: unknown;
  stock: { controlled: boolean; qty: number };
  config_options: unknown;
};

export async function readUpstreamProduct(
  deps: DomainDeps,
  supplier: SupplierRow,
  upstreamProductId: number,
  call: { traceId?: string | undefined; timeoutMs?: number } = {},
): Promise<UpstreamProduct> {
  const data = requireSupplierData(
    await invokeSupplierPlugin(deps, supplier, {
      action: 'upstream.product_config',
      payload: { pid: upstreamProductId },
      ...(call.traceId ? { traceId: call.traceId } : {}),
      ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    }),
  );
  return data['product'] as UpstreamProduct;
}

/** The supplier's catalogue (groups with their products), normalised by its plugin. */
export async function readSupplierCatalogue(deps: DomainDeps, supplierId: number) {
  const supplier = await getSupplier(deps, supplierId);
  const data = requireSupplierData(await invokeSupplierPlugin(deps, supplier, { action: 'upstream.catalogue' }));
  return data['groups'] as Array<{ id: number; name: string; products: Array<Record<string, unknown>> }>;
}

/** A third-level category with the menu and type it belongs to. */
async function categoryChain(deps: DomainDeps, categoryId: number, transaction?: Transaction) {
  const { ProductCategory, ProductGroup, ProductMenu } = deps.db.models;
  const category = await ProductCategory.findByPk(categoryId, { ...(transaction ? { transaction } : {}) });
  const group = category ? await ProductGroup.findByPk(category.second_product_group_id, { ...(transaction ? { transaction } : {}) }) : null;
  const menu = group ? await ProductMenu.findByPk(group.first_product_group_id, { ...(transaction ? { transaction } : {}) }) : null;
  if (!category || !group || !menu) throw validationError({ product_group_id: ['商品分类不存在'] });
  return { category, group, menu };
}

/** Options and stock as the supplier has them now, with the binding's price rule applied. */
function syncedFields(upstream: UpstreamProduct, rule: PriceRule) {
  return {
    config_options: applyPriceRuleToOptions(parseConfigOptions(upstream.config_options), rule),
    stock_control: upstream.stock.controlled,
    stock_qty: Math.max(0, upstream.stock.qty),
  };
}

export type PullInput = {
  upstream_product_ids: number[];
  product_group_id: number;
  price_rule: PriceRule;
  status: 'active' | 'hidden';
};

export type PullOutcome = {
  imported: Array<{ upstream_product_id: number; product_id: number; name: string }>;
  skipped: Array<{ upstream_product_id: number; reason: string }>;
};

/**
 * Imports supplier products into a local category: name, description, prices (with the markup),
 * config option items (checked like any product's), stock, and the upstream binding (supplier,
 * plugin, real provider key, upstream product id, price rule). The product type comes from the
 * category's menu, never from the supplier. An upstream product already bound to a product of
 * this supplier is skipped (re-sync updates it instead); one that fails is reported, the others
 * still import.
 */
export async function pullSupplierProducts(deps: DomainDeps, supplierId: number, input: PullInput, operator: Actor): Promise<PullOutcome> {
  const supplier = await getSupplier(deps, supplierId);
  const { menu, group, category } = await categoryChain(deps, input.product_group_id);
  const { Product, ProductUpstreamBinding, CatalogueAuditLog } = deps.db.models;
  const outcome: PullOutcome = { imported: [], skipped: [] };
  for (const upstreamId of [...new Set(input.upstream_product_ids)]) {
    const existing = await ProductUpstreamBinding.findOne({ where: { supplier_id: supplier.id, upstream_product_id: String(upstreamId) } });
    if (existing) {
      outcome.skipped.push({ upstream_product_id: upstreamId, reason: `已导入为商品 ${existing.product_id}，请使用同步更新` });
      continue;
    }
    let upstream: UpstreamProduct;
    let fields: ReturnType<typeof syncedFields>;
    let pricing;
    try {
      upstream = await readUpstreamProduct(deps, supplier, upstreamId);
      fields = syncedFields(upstream, input.price_rule);
      pricing = applyPriceRule(parsePricingMap(upstream.pricing), input.price_rule);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcome.skipped.push({ upstream_product_id: upstreamId, reason: err.message });
      continue;
    }
    const product = await deps.db.sequelize.transaction(async (transaction) => {
      const created: ProductRow = await Product.create(
        {
          first_product_group_id: menu.id,
          second_product_group_id: group.id,
          product_group_id: category.id,
          name: upstream.name.slice(0, 128),
          description: upstream.description,
          product_type: menu.product_type,
          service_type_code: menu.product_type,
          pricing,
          ...fields,
          status: input.status,
        },
        { transaction },
      );
      await ProductUpstreamBinding.create(
        {
          product_id: created.id,
          plugin_id: supplier.plugin_id,
          supplier_id: supplier.id,
          provider_key: supplier.interface_type,
          upstream_product_id: String(upstreamId),
          price_rule: input.price_rule,
          synced_at: new Date(),
        },
        { transaction },
      );
      await CatalogueAuditLog.create(
        {
          entity_type: 'product',
          entity_id: created.id,
          action: 'import',
          changes: { supplier_id: supplier.id, upstream_product_id: upstreamId, price_rule: input.price_rule },
          operator_id: operator.id,
          operator_name: operator.name,
        },
        { transaction },
      );
      // Storefront caches of every API process drop what they hold once this commits.
      await publishCatalogueChange(deps, transaction);
      return created;
    });
    outcome.imported.push({ upstream_product_id: upstreamId, product_id: product.id, name: product.name });
  }
  return outcome;
}

/**
 * Re-reads a bound product's options and stock from its supplier and applies the binding's price
 * rule again; base prices, names and local settings stay as the admin left them.
 */
export async function syncSupplierProduct(deps: DomainDeps, supplierId: number, productId: number, operator: Actor): Promise<ProductRow> {
  const { Product, ProductUpstreamBinding, CatalogueAuditLog } = deps.db.models;
  const binding = await ProductUpstreamBinding.findByPk(productId);
  const product = await Product.findOne({ where: { id: productId, deleted_at: null } });
  if (!product || !binding || binding.supplier_id !== supplierId) throw validationError({ product_id: ['该商品没有绑定到此供应商'] });
  const supplier = await getSupplier(deps, supplierId);
  const upstream = await readUpstreamProduct(deps, supplier, Number(binding.upstream_product_id));
  const rule = binding.price_rule as PriceRule;
  const fields = syncedFields(upstream, rule.type ? rule : { type: 'percent', value: '0' });
  return deps.db.sequelize.transaction(async (transaction) => {
    const before = { stock_control: product.stock_control, stock_qty: product.stock_qty, option_count: product.config_options.length };
    await product.update(fields, { transaction });
    await binding.update({ synced_at: new Date() }, { transaction });
    await CatalogueAuditLog.create(
      {
        entity_type: 'product',
        entity_id: product.id,
        action: 'sync',
        changes: { before, after: { stock_control: fields.stock_control, stock_qty: fields.stock_qty, option_count: fields.config_options.length } },
        operator_id: operator.id,
        operator_name: operator.name,
      },
      { transaction },
    );
    await publishCatalogueChange(deps, transaction);
    return product;
  });
}

/**
 * Binds existing local products (`ids`) to one upstream product of the supplier, after checking
 * the supplier really has it. A product of another supplier is rebound; the binding keeps the
 * real provider key of the supplier's interface.
 */
export async function bindProductsToSupplier(
  deps: DomainDeps,
  supplierId: number,
  input: { ids: number[]; upstream_product_id: number },
  operator: Actor,
): Promise<{ bound: number[] }> {
  const supplier = await getSupplier(deps, supplierId);
  const { Product, ProductUpstreamBinding, CatalogueAuditLog } = deps.db.models;
  const ids = [...new Set(input.ids)];
  const products = await Product.findAll({ where: { id: ids, deleted_at: null } });
  const missing = ids.filter((id) => !products.some((p) => p.id === id));
  if (missing.length > 0) throw validationError({ ids: [`商品不存在：${missing.join('、')}`] });
  await readUpstreamProduct(deps, supplier, input.upstream_product_id);
  await deps.db.sequelize.transaction(async (transaction) => {
    for (const id of ids) {
      await ProductUpstreamBinding.upsert(
        {
          product_id: id,
          plugin_id: supplier.plugin_id,
          supplier_id: supplier.id,
          provider_key: supplier.interface_type,
          upstream_product_id: String(input.upstream_product_id),
        },
        { transaction },
      );
      await CatalogueAuditLog.create(
        {
          entity_type: 'product',
          entity_id: id,
          action: 'bind_supplier',
          changes: { supplier_id: supplier.id, upstream_product_id: input.upstream_product_id },
          operator_id: operator.id,
          operator_name: operator.name,
        },
        { transaction },
      );
    }
    await publishCatalogueChange(deps, transaction);
  });
  return { bound: ids };
}
