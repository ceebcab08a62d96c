import type { Actor } from '../../lib/actor.js';
import type { Transaction } from 'sequelize';
import { AppError, ErrorCode, type FieldErrors, validationError } from '../../lib/errors.js';
import type { ProductRow, ProductStatus, ProductUpstreamBindingRow } from '../../db/models/catalogue.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { DomainDeps } from '../deps.js';
import { type AuditRecord, diffFields, type FieldChanges, recordCatalogueAudit } from './audit.js';
import { publishCatalogueChange } from './catalogue-events.js';
import { type ConfigOptionItem, parseConfigOptions } from './config-options.js';
import { findCategory, findGroup, findMenu, orInvalid, orNotFound } from './directory-rows.js';
import { type PricingMap, parsePricingMap } from './pricing-map.js';
import { hasPlacement, type Placement, type PlacementInput, resolvePlacement } from './product-placement.js';
import { checkUpstreamPlugin, type FlatMap, parseFlatMap, providerKeyOf } from './product-upstream.js';
import { assertUpstreamBound } from './upstream-check.js';

/**
 * What an admin sends for a product. `product_type`/`service_type_code` are not part of it:
 * they always come from the owning menu (a client-supplied value is dropped by the route).
 */
export type ProductInput = PlacementInput & {
  name?: string | undefined;
  display_name?: string | undefined;
  description?: string | undefined;
  pricing?: unknown;
  config_options?: unknown;
  purchase_template?: string | null | undefined;
  console_template?: string | null | undefined;
  stock_control?: boolean | undefined;
  stock_qty?: number | undefined;
  status?: ProductStatus | undefined;
  sort_order?: number | undefined;
  plugin_id?: number | null | undefined;
  upstream_product_id?: string | undefined;
  config_template?: unknown;
  provisioning_policy?: unknown;
};

const PRODUCT_FIELDS = [
  'name',
  'display_name',
  'description',
  'first_product_group_id',
  'second_product_group_id',
  'product_group_id',
  'product_type',
  'service_type_code',
  'pricing',
  'config_options',
  'purchase_template',
  'console_template',
  'stock_control',
  'stock_qty',
  'status',
  'sort_order',
] as const;
const BINDING_FIELDS = ['plugin_id', 'provider_key', 'upstream_product_id', 'config_template', 'provisioning_policy'] as const;

type Parsed = { pricing?: PricingMap; config_options?: ConfigOptionItem[]; config_template?: FlatMap; provisioning_policy?: FlatMap };

/** Runs every parser and reports all their field errors in one 42200. */
function parseInput(input: ProductInput, creating: boolean): Parsed {
  const errors: FieldErrors = {};
  const parsed: Parsed = {};
  const attempt = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.VALIDATION) throw error;
      for (const [k, v] of Object.entries((error.data as { errors: FieldErrors }).errors)) (errors[k] ??= []).push(...v);
    }
  };
  if (input.pricing !== undefined || creating) {
    attempt(() => {
      parsed.pricing = parsePricingMap(input.pricing ?? {});
      if (Object.keys(parsed.pricing).length === 0) throw validationError({ pricing: ['请至少填写一个计费周期的价格'] });
    });
  }
  if (input.config_options !== undefined) attempt(() => (parsed.config_options = parseConfigOptions(input.config_options)));
  if (input.config_template !== undefined) attempt(() => (parsed.config_template = parseFlatMap(input.config_template, 'config_template')));
  if (input.provisioning_policy !== undefined) attempt(() => (parsed.provisioning_policy = parseFlatMap(input.provisioning_policy, 'provisioning_policy')));
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return parsed;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function hasBindingFields(input: ProductInput): boolean {
  return input.upstream_product_id !== undefined || input.config_template !== undefined || input.provisioning_policy !== undefined;
}

/**
 * Writes the product's upstream binding when the request touches it: `plugin_id: null`
 * removes it; otherwise it is created or updated, with the plugin's real provider key.
 * Returns the binding's audit changes.
 */
async function writeBinding(
  deps: DomainDeps,
  productId: number,
  input: ProductInput,
  parsed: Parsed,
  plugin: PluginRow | null,
  transaction: Transaction,
): Promise<FieldChanges> {
  const { ProductUpstreamBinding } = deps.db.models;
  const existing = await ProductUpstreamBinding.findByPk(productId, { transaction, lock: transaction.LOCK.UPDATE });
  const before = existing ? existing.get({ plain: true }) : null;
  if (input.plugin_id === null) {
    if (!existing) return {};
    await existing.destroy({ transaction });
    return diffFields(before, { plugin_id: null, provider_key: null, upstream_product_id: null, config_template: null, provisioning_policy: null }, BINDING_FIELDS);
  }
  if (input.plugin_id === undefined && !hasBindingFields(input)) return {};
  const pluginId = input.plugin_id ?? existing?.plugin_id ?? null;
  if (pluginId === null || (!plugin && input.plugin_id !== undefined)) throw validationError({ plugin_id: ['请先选择上游插件'] });
  const next: Partial<ProductUpstreamBindingRow> = definedOnly({
    plugin_id: pluginId,
    ...(plugin ? { provider_key: providerKeyOf(plugin) } : {}),
    upstream_product_id: input.upstream_product_id,
    config_template: parsed.config_template,
    provisioning_policy: parsed.provisioning_policy,
  });
  const changes = diffFields(before, next, BINDING_FIELDS);
  if (existing) {
    existing.set(next);
    await existing.save({ transaction });
  } else {
    await ProductUpstreamBinding.create({ product_id: productId, plugin_id: pluginId, supplier_id: null, provider_key: '', ...next }, { transaction });
  }
  return changes;
}

function pick<T extends object>(row: T, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, (row as Record<string, unknown>)[f]]));
}

/**
 * Creates a product. Its menu, group and category come from the placement fields, its type
 * from the menu; pricing and config options are checked field by field. A product of type
 * `other` must name an enabled upstream plugin (`plugin_id`).
 */
export async function createProduct(deps: DomainDeps, input: ProductInput, operator: Actor): Promise<number> {
  if (!hasPlacement(input)) throw validationError({ first_product_group_id: ['请选择商品所属的一级菜单（first_product_group_id 或 first_product_group_code）或三级分类'] });
  const parsed = parseInput(input, true);
  return deps.db.sequelize.transaction(async (transaction) => {
    const placement = await resolvePlacement(deps, input, transaction);
    const type = placement.menu.product_type;
    if (type === 'other' && (input.plugin_id === undefined || input.plugin_id === null)) {
      throw validationError({ plugin_id: ['类型为“其他”的商品必须绑定已启用的上游插件'] });
    }
    const plugin = input.plugin_id ? await checkUpstreamPlugin(deps, input.plugin_id, type === 'other', transaction) : null;
    const row = await deps.db.models.Product.create(
      {
        first_product_group_id: placement.menu.id,
        second_product_group_id: placement.groupId,
        product_group_id: placement.categoryId,
        name: input.name ?? '',
        display_name: input.display_name ?? '',
        description: input.description ?? '',
        product_type: type,
        service_type_code: type,
        pricing: parsed.pricing ?? {},
        config_options: parsed.config_options ?? [],
        purchase_template: input.purchase_template ?? null,
        console_template: input.console_template ?? null,
        stock_control: input.stock_control ?? false,
        stock_qty: input.stock_qty ?? 0,
        status: input.status ?? 'active',
        sort_order: input.sort_order ?? 0,
      },
      { transaction },
    );
    const changes = diffFields(null, pick(row.get({ plain: true }), PRODUCT_FIELDS), PRODUCT_FIELDS);
    Object.assign(changes, await writeBinding(deps, row.id, input, parsed, plugin, transaction));
    await recordCatalogueAudit(deps, [{ entity_type: 'product', entity_id: row.id, action: 'create', changes }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
    return row.id;
  });
}

async function findLiveProduct(deps: DomainDeps, id: number, transaction: Transaction): Promise<ProductRow> {
  const row = await deps.db.models.Product.findOne({ where: { id, deleted_at: null }, transaction, lock: transaction.LOCK.UPDATE });
  return orNotFound(row, '商品不存在');
}

/** The placement after an update: a menu-only reference to the same menu keeps the group and category. */
async function placementAfter(deps: DomainDeps, product: ProductRow, input: ProductInput, transaction: Transaction): Promise<Placement> {
  if (hasPlacement(input)) {
    const placement = await resolvePlacement(deps, input, transaction);
    const menuOnly = placement.groupId === null && input.second_product_group_id === undefined && input.product_group_id === undefined;
    if (menuOnly && placement.menu.id === product.first_product_group_id) {
      return { menu: placement.menu, groupId: product.second_product_group_id, categoryId: product.product_group_id };
    }
    return placement;
  }
  const menu = orInvalid(await findMenu(deps, product.first_product_group_id, { transaction, lock: 'share' }), 'first_product_group_id', '商品所属的一级菜单不存在');
  const groupId = input.second_product_group_id === null ? null : product.second_product_group_id;
  const categoryId = input.second_product_group_id === null || input.product_group_id === null ? null : product.product_group_id;
  return { menu, groupId, categoryId };
}

/**
 * Updates the fields given. A new placement re-derives menu, group, category and type; the
 * type stays the menu's whatever the client sends. Becoming (or staying while rebinding)
 * type `other` requires an enabled upstream plugin.
 */
export async function updateProduct(deps: DomainDeps, id: number, input: ProductInput, operator: Actor): Promise<void> {
  const parsed = parseInput(input, false);
  await deps.db.sequelize.transaction(async (transaction) => {
    const product = await findLiveProduct(deps, id, transaction);
    const placement = await placementAfter(deps, product, input, transaction);
    const type = placement.menu.product_type;
    const typeChanged = type !== product.product_type;
    const binding = await deps.db.models.ProductUpstreamBinding.findByPk(id, { transaction });
    let plugin: PluginRow | null = null;
    if (input.plugin_id !== undefined && input.plugin_id !== null) plugin = await checkUpstreamPlugin(deps, input.plugin_id, type === 'other', transaction);
    if (type === 'other' && (typeChanged || input.plugin_id !== undefined)) {
      const pluginId = input.plugin_id !== undefined ? input.plugin_id : (binding?.plugin_id ?? null);
      if (pluginId === null) throw validationError({ plugin_id: ['类型为“其他”的商品必须绑定已启用的上游插件'] });
      plugin ??= await checkUpstreamPlugin(deps, pluginId, true, transaction);
    }
    const next = definedOnly({
      first_product_group_id: placement.menu.id,
      second_product_group_id: placement.groupId,
      product_group_id: placement.categoryId,
      product_type: type,
      service_type_code: type,
      name: input.name,
      display_name: input.display_name,
      description: input.description,
      pricing: parsed.pricing,
      config_options: parsed.config_options,
      purchase_template: input.purchase_template,
      console_template: input.console_template,
      stock_control: input.stock_control,
      stock_qty: input.stock_qty,
      status: input.status,
      sort_order: input.sort_order,
    });
    const changes = diffFields(pick(product.get({ plain: true }), PRODUCT_FIELDS), next, PRODUCT_FIELDS);
    if (Object.keys(changes).length > 0) {
      product.set(next);
      await product.save({ transaction });
    }
    Object.assign(changes, await writeBinding(deps, id, input, parsed, plugin, transaction));
    if (Object.keys(changes).length === 0) return;
    await recordCatalogueAudit(deps, [{ entity_type: 'product', entity_id: id, action: 'update', changes }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
}

/** Soft delete: invoices may reference the product, so the row stays (hidden from every list). */
export async function deleteProduct(deps: DomainDeps, id: number, operator: Actor): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const product = await findLiveProduct(deps, id, transaction);
    product.deleted_at = new Date();
    await product.save({ transaction });
    await recordCatalogueAudit(deps, [{ entity_type: 'product', entity_id: id, action: 'delete', changes: { name: { old: product.name, new: null } } }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
}

/**
 * Binds products to a category, all or nothing: each product takes the category's group, menu
 * and type. Unknown or deleted ids → 42200 on `ids`; a category under an `other` menu needs
 * every product bound to an enabled upstream plugin.
 */
export async function bindProductsToCategory(deps: DomainDeps, ids: number[], categoryId: number, operator: Actor): Promise<{ ids: number[]; updated: number }> {
  const unique = [...new Set(ids)];
  return deps.db.sequelize.transaction(async (transaction) => {
    const category = orInvalid(await findCategory(deps, categoryId, { transaction, lock: 'share' }), 'product_group_id', '三级分类不存在');
    const group = orInvalid(await findGroup(deps, category.second_product_group_id, { transaction, lock: 'share' }), 'product_group_id', '三级分类所属的二级分组不存在');
    const menu = orInvalid(await findMenu(deps, group.first_product_group_id, { transaction, lock: 'share' }), 'product_group_id', '三级分类所属的一级菜单不存在');
    const products = await deps.db.models.Product.findAll({ where: { id: unique, deleted_at: null }, transaction, lock: transaction.LOCK.UPDATE, order: [['id', 'ASC']] });
    const found = new Set(products.map((p) => p.id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) throw validationError({ ids: [`商品 ${missing.slice(0, 10).join('、')} 不存在或已删除`] });
    if (menu.product_type === 'other') await assertUpstreamBound(deps, { productIds: unique }, 'product_group_id', transaction);
    const next = {
      first_product_group_id: menu.id,
      second_product_group_id: group.id,
      product_group_id: category.id,
      product_type: menu.product_type,
      service_type_code: menu.product_type,
    };
    const records: AuditRecord[] = [];
    for (const product of products) {
      const changes = diffFields(pick(product.get({ plain: true }), PRODUCT_FIELDS), next, PRODUCT_FIELDS);
      if (Object.keys(changes).length === 0) continue;
      product.set(next);
      await product.save({ transaction });
      records.push({ entity_type: 'product', entity_id: product.id, action: 'bind_category', changes });
    }
    await recordCatalogueAudit(deps, records, operator, transaction);
    if (records.length > 0) await publishCatalogueChange(deps, transaction);
    return { ids: unique, updated: records.length };
  });
}
