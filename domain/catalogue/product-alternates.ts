import type { Transaction } from 'sequelize';
import { sqlRows } from '../../db/sql.js';
import type { Actor } from '../../lib/actor.js';
import { AppError, ErrorCode, validationError } from '../../lib/errors.js';
import type { ProductRow, ProductUpstreamAlternateRow, UpstreamRoutingPolicy } from '../../db/models/catalogue.js';
import type { SupplierRow } from '../../db/models/supplier.js';
import type { DomainDeps } from '../deps.js';
import { parsePriceRule } from '../suppliers/price-rule.js';
import { readUpstreamProduct } from '../suppliers/product-import.js';
import { recordCatalogueAudit } from './audit.js';
import { orInvalid, orNotFound } from './directory-rows.js';
import { type ProductBindings, productBindings } from './product-bindings.js';
import { checkUpstreamPlugin, parseFlatMap, providerKeyOf } from './product-upstream.js';

/**
 * The admin's writes of a product's further upstream bindings (issue #38, docs/fulfilment.md
 * "Several suppliers per product") and of its routing policy. The first binding stays the
 * product's own (`plugin_id`, `upstream_product_id`, … of the product routes, the import, the
 * batch binding); these add, change, remove and reorder the ones after it (priority 1, 2, …).
 * Each write is one transaction with the product's row lock and one catalogue audit entry
 * (`update`, the ordered list before and after), so the admin audit's row commits with it.
 */

/** At most this many further bindings per product. */
export const MAX_ALTERNATES = 10;

export type AlternateInput = {
  supplier_id?: number | undefined;
  upstream_product_id?: string | undefined;
  config_template?: unknown;
  price_rule?: unknown;
};

/** One binding as the audit keeps it (the list before and after a change). */
function auditView(read: ProductBindings) {
  return read.bindings.map((b) => ({ priority: b.priority, supplier_id: b.supplier_id, upstream_product_id: b.upstream_product_id }));
}

async function lockProduct(deps: DomainDeps, productId: number, transaction: Transaction): Promise<ProductRow> {
  const row = await deps.db.models.Product.findOne({ where: { id: productId, deleted_at: null }, transaction, lock: transaction.LOCK.UPDATE });
  return orNotFound(row, '商品不存在');
}

async function readLocked(deps: DomainDeps, productId: number, transaction: Transaction): Promise<ProductBindings> {
  return orNotFound(await productBindings(deps, productId, transaction), '商品不存在');
}

/** The supplier a binding names: existing, active, talking through an installed upstream plugin (enabled for type `other`). */
async function checkSupplier(deps: DomainDeps, supplierId: number, product: ProductRow, transaction: Transaction): Promise<{ supplier: SupplierRow; providerKey: string }> {
  const supplier = orInvalid(await deps.db.models.Supplier.findByPk(supplierId, { transaction, lock: transaction.LOCK.SHARE }), 'supplier_id', '供应商不存在');
  if (supplier.status !== 'active') throw validationError({ supplier_id: ['供应商已停用，不能绑定'] });
  if (supplier.plugin_id === null) throw validationError({ supplier_id: ['供应商未关联上游插件'] });
  const plugin = await checkUpstreamPlugin(deps, supplier.plugin_id, product.product_type === 'other', transaction);
  return { supplier, providerKey: providerKeyOf(plugin) };
}

/**
 * The supplier really has the upstream product (one `upstream.product_config` read, before the
 * transaction). A refusal (no such product, withdrawn) is 42200 on `upstream_product_id`; a
 * supplier that cannot be reached stays 50300.
 */
async function assertUpstreamProduct(deps: DomainDeps, supplierId: number, upstreamProductId: string): Promise<void> {
  const supplier = orInvalid(await deps.db.models.Supplier.findByPk(supplierId), 'supplier_id', '供应商不存在');
  try {
    await readUpstreamProduct(deps, supplier, Number(upstreamProductId));
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.SUPPLIER_REFUSED) {
      throw validationError({ upstream_product_id: [`供应商没有可用的上游商品 ${upstreamProductId}：${error.message}`] });
    }
    throw error;
  }
}

function assertNotBound(read: ProductBindings, supplierId: number, upstreamProductId: string, exceptId: number | null): void {
  const twin = read.bindings.find((b) => (exceptId === null || b.id !== exceptId) && b.supplier_id === supplierId && b.upstream_product_id === upstreamProductId);
  if (twin) {
    throw validationError({ upstream_product_id: [`该商品已绑定此供应商的上游商品 ${upstreamProductId}（优先级 ${twin.priority}）`] });
  }
}

type Parsed = { config_template?: Record<string, unknown>; price_rule?: Record<string, unknown> };

function parseAlternate(input: AlternateInput): Parsed {
  const parsed: Parsed = {};
  const errors: Record<string, string[]> = {};
  for (const [field, run] of [
    ['config_template', () => (parsed.config_template = parseFlatMap(input.config_template, 'config_template'))],
    ['price_rule', () => (parsed.price_rule = parsePriceRule(input.price_rule))],
  ] as const) {
    if (input[field] === undefined) continue;
    try {
      run();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.VALIDATION) throw error;
      Object.assign(errors, (error.data as { errors: Record<string, string[]> }).errors);
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return parsed;
}

async function audit(deps: DomainDeps, productId: number, before: ProductBindings, operator: Actor, transaction: Transaction): Promise<ProductBindings> {
  const after = await readLocked(deps, productId, transaction);
  await recordCatalogueAudit(
    deps,
    [{ entity_type: 'product', entity_id: productId, action: 'update', changes: { upstream_bindings: { old: auditView(before), new: auditView(after) } } }],
    operator,
    transaction,
  );
  return after;
}

/** Adds a further binding after the last one (priority = last + 1). The product must have its first binding. */
export async function addProductAlternate(
  deps: DomainDeps,
  productId: number,
  input: Required<Pick<AlternateInput, 'supplier_id' | 'upstream_product_id'>> & AlternateInput,
  operator: Actor,
): Promise<{ id: number; bindings: ProductBindings }> {
  const parsed = parseAlternate(input);
  await assertUpstreamProduct(deps, input.supplier_id, input.upstream_product_id);
  return deps.db.sequelize.transaction(async (transaction) => {
    const product = await lockProduct(deps, productId, transaction);
    const before = await readLocked(deps, productId, transaction);
    if (!before.bindings.some((b) => b.id === null)) {
      throw validationError({ supplier_id: ['请先为商品设置上游绑定（首个绑定），再添加更多绑定'] });
    }
    if (before.bindings.length - 1 >= MAX_ALTERNATES) throw validationError({ supplier_id: [`每个商品最多 ${MAX_ALTERNATES} 个备用上游绑定`] });
    const { supplier, providerKey } = await checkSupplier(deps, input.supplier_id, product, transaction);
    assertNotBound(before, supplier.id, input.upstream_product_id, null);
    const last = before.bindings[before.bindings.length - 1]?.priority ?? 0;
    const row: ProductUpstreamAlternateRow = await deps.db.models.ProductUpstreamAlternate.create(
      {
        product_id: productId,
        priority: last + 1,
        supplier_id: supplier.id,
        plugin_id: supplier.plugin_id,
        provider_key: providerKey,
        upstream_product_id: input.upstream_product_id,
        config_template: parsed.config_template ?? {},
        price_rule: parsed.price_rule ?? {},
      },
      { transaction },
    );
    return { id: row.id, bindings: await audit(deps, productId, before, operator, transaction) };
  });
}

async function lockAlternate(deps: DomainDeps, productId: number, id: number, transaction: Transaction): Promise<ProductUpstreamAlternateRow> {
  const row = await deps.db.models.ProductUpstreamAlternate.findOne({ where: { id, product_id: productId }, transaction, lock: transaction.LOCK.UPDATE });
  return orNotFound(row, '该商品没有这个备用上游绑定');
}

/** Changes a further binding's supplier, upstream product, config template or price rule (the fields given). */
export async function updateProductAlternate(deps: DomainDeps, productId: number, id: number, input: AlternateInput, operator: Actor): Promise<ProductBindings> {
  const parsed = parseAlternate(input);
  if (input.supplier_id !== undefined || input.upstream_product_id !== undefined) {
    const current = await deps.db.models.ProductUpstreamAlternate.findOne({ where: { id, product_id: productId } });
    const target = orNotFound(current, '该商品没有这个备用上游绑定');
    await assertUpstreamProduct(deps, input.supplier_id ?? target.supplier_id, input.upstream_product_id ?? target.upstream_product_id);
  }
  return deps.db.sequelize.transaction(async (transaction) => {
    const product = await lockProduct(deps, productId, transaction);
    const row = await lockAlternate(deps, productId, id, transaction);
    const before = await readLocked(deps, productId, transaction);
    const next: Partial<ProductUpstreamAlternateRow> = {};
    if (input.supplier_id !== undefined) {
      const { supplier, providerKey } = await checkSupplier(deps, input.supplier_id, product, transaction);
      Object.assign(next, { supplier_id: supplier.id, plugin_id: supplier.plugin_id, provider_key: providerKey });
    }
    if (input.upstream_product_id !== undefined) next.upstream_product_id = input.upstream_product_id;
    if (parsed.config_template !== undefined) next.config_template = parsed.config_template;
    if (parsed.price_rule !== undefined) next.price_rule = parsed.price_rule;
    assertNotBound(before, next.supplier_id ?? row.supplier_id, next.upstream_product_id ?? row.upstream_product_id, row.id);
    await row.update(next, { transaction });
    return audit(deps, productId, before, operator, transaction);
  });
}

/** The further bindings, in order, numbered 1, 2, … again (one statement: the priority key is deferred). */
async function renumber(deps: DomainDeps, productId: number, ids: number[], transaction: Transaction): Promise<void> {
  if (ids.length === 0) return;
  await sqlRows(
    deps,
    `UPDATE product_upstream_alternates a SET priority = o.n, updated_at = now()
       FROM unnest($1::int[]) WITH ORDINALITY AS o(id, n) WHERE a.id = o.id AND a.product_id = $2 AND a.priority <> o.n`,
    [ids, productId],
    transaction,
  );
}

/** Removes a further binding; the ones after it move up (priorities stay 1, 2, …). */
export async function removeProductAlternate(deps: DomainDeps, productId: number, id: number, operator: Actor): Promise<ProductBindings> {
  return deps.db.sequelize.transaction(async (transaction) => {
    await lockProduct(deps, productId, transaction);
    const row = await lockAlternate(deps, productId, id, transaction);
    const before = await readLocked(deps, productId, transaction);
    await row.destroy({ transaction });
    const rest = before.bindings.filter((b) => b.id !== null && b.id !== id).map((b) => b.id as number);
    await renumber(deps, productId, rest, transaction);
    return audit(deps, productId, before, operator, transaction);
  });
}

/**
 * Puts the further bindings in the order of `ids` (every further binding of the product, each
 * once; priorities become 1, 2, …). The first binding stays first. All or nothing.
 */
export async function reorderProductAlternates(deps: DomainDeps, productId: number, ids: number[], operator: Actor): Promise<ProductBindings> {
  return deps.db.sequelize.transaction(async (transaction) => {
    await lockProduct(deps, productId, transaction);
    const before = await readLocked(deps, productId, transaction);
    const current = before.bindings.filter((b) => b.id !== null).map((b) => b.id as number);
    const errors: Record<string, string[]> = {};
    ids.forEach((id, i) => {
      if (!current.includes(id)) errors[`ids.${i}`] = [`备用上游绑定 ${id} 不属于该商品`];
      else if (ids.indexOf(id) !== i) errors[`ids.${i}`] = [`备用上游绑定 ${id} 重复`];
    });
    const missing = current.filter((id) => !ids.includes(id));
    if (missing.length > 0) errors['ids'] = [`请列出该商品全部备用上游绑定，缺少：${missing.join('、')}`];
    if (Object.keys(errors).length > 0) throw validationError(errors);
    await renumber(deps, productId, ids, transaction);
    return audit(deps, productId, before, operator, transaction);
  });
}

/** Sets the product's routing policy among its bindings (`priority` or `lowest_cost`). */
export async function setUpstreamRouting(deps: DomainDeps, productId: number, policy: UpstreamRoutingPolicy, operator: Actor): Promise<ProductBindings> {
  return deps.db.sequelize.transaction(async (transaction) => {
    const product = await lockProduct(deps, productId, transaction);
    if (product.upstream_routing !== policy) {
      const old = product.upstream_routing;
      await product.update({ upstream_routing: policy }, { transaction });
      await recordCatalogueAudit(
        deps,
        [{ entity_type: 'product', entity_id: productId, action: 'update', changes: { upstream_routing: { old, new: policy } } }],
        operator,
        transaction,
      );
    }
    return readLocked(deps, productId, transaction);
  });
}
