import type { Actor } from '../../lib/actor.js';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { ProductGroupRow } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';
import { type AuditRecord, diffFields, recordCatalogueAudit } from './audit.js';
import { publishCatalogueChange } from './catalogue-events.js';
import { findGroup, findMenu, orInvalid, orNotFound } from './directory-rows.js';
import { replaceProducts } from './product-moves.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { likePattern, orderBy, pageSql, type SortSpec } from './sorting.js';
import { assertUpstreamBound } from './upstream-check.js';

export type GroupView = {
  id: number;
  first_product_group_id: number;
  product_type: ProductType;
  name: string;
  description: string;
  is_visible: number;
  sort_order: number;
  category_count: number;
  product_count: number;
  created_at: Date;
  updated_at: Date;
};

export const GROUP_SORT_KEYS = ['sort_order', 'id', 'name', 'created_at'] as const;
export type GroupSortKey = (typeof GROUP_SORT_KEYS)[number];

export type GroupListQuery = {
  page: number;
  page_size: number;
  first_product_group_id?: number | undefined;
  is_visible?: boolean | undefined;
  keyword?: string | undefined;
  sort?: SortSpec<GroupSortKey> | undefined;
};

const GROUP_COLUMNS = `g.id, g.first_product_group_id, m.product_type, g.name, g.description, g.is_visible, g.sort_order, g.created_at, g.updated_at,
  (SELECT count(*) FROM product_categories c WHERE c.second_product_group_id = g.id AND c.deleted_at IS NULL)::int AS category_count,
  (SELECT count(*) FROM products p WHERE p.second_product_group_id = g.id AND p.deleted_at IS NULL)::int AS product_count`;
const GROUP_FROM = 'product_groups g JOIN product_menus m ON m.id = g.first_product_group_id';

export async function listGroups(deps: DomainDeps, query: GroupListQuery): Promise<{ rows: GroupView[]; total: number }> {
  const conditions = ['g.deleted_at IS NULL'];
  const { values, param } = sqlParams();
  if (query.first_product_group_id !== undefined) {
    conditions.push(`g.first_product_group_id = ${param(query.first_product_group_id)}`);
  }
  if (query.is_visible !== undefined) {
    conditions.push(`g.is_visible = ${param(query.is_visible ? 1 : 0)}`);
  }
  if (query.keyword) {
    conditions.push(`g.name ILIKE ${param(likePattern(query.keyword))}`);
  }
  const where = `WHERE ${conditions.join(' AND ')}`;
  const order = orderBy(query.sort, { sort_order: 'g.sort_order', id: 'g.id', name: 'g.name', created_at: 'g.created_at' }, { key: 'sort_order', direction: 'ASC' }, 'g.id');
  const [rows, counted] = await Promise.all([
    sqlRows<GroupView>(deps, `SELECT ${GROUP_COLUMNS} FROM ${GROUP_FROM} ${where} ${order} ${pageSql(query)}`, values),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM product_groups g ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getGroup(deps: DomainDeps, id: number): Promise<GroupView> {
  const row = await sqlOne<GroupView>(deps, `SELECT ${GROUP_COLUMNS} FROM ${GROUP_FROM} WHERE g.id = $1 AND g.deleted_at IS NULL`, [id]);
  return orNotFound(row, '二级分组不存在');
}

export type GroupInput = {
  first_product_group_id: number;
  name: string;
  description?: string | undefined;
  is_visible?: number | undefined;
  sort_order?: number | undefined;
};

const GROUP_FIELDS = ['first_product_group_id', 'name', 'description', 'is_visible', 'sort_order'] as const;

export async function createGroup(deps: DomainDeps, input: GroupInput, operator: Actor): Promise<GroupView> {
  const { ProductGroup } = deps.db.models;
  const id = await deps.db.sequelize.transaction(async (transaction) => {
    orInvalid(await findMenu(deps, input.first_product_group_id, { transaction }), 'first_product_group_id', '一级菜单不存在');
    const sortOrder =
      input.sort_order ??
      ((await ProductGroup.max<number | null, ProductGroupRow>('sort_order', { where: { first_product_group_id: input.first_product_group_id, deleted_at: null }, transaction })) ?? 0) + 1;
    const row = await ProductGroup.create(
      { first_product_group_id: input.first_product_group_id, name: input.name, description: input.description ?? '', is_visible: input.is_visible ?? 1, sort_order: sortOrder },
      { transaction },
    );
    const changes = diffFields(null, row.get({ plain: true }), GROUP_FIELDS);
    await recordCatalogueAudit(deps, [{ entity_type: 'group', entity_id: row.id, action: 'create', changes }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
    return row.id;
  });
  return getGroup(deps, id);
}

/**
 * Updates a group. Moving it to another menu (`first_product_group_id`) moves its categories
 * with it (they hang off the group) and re-derives the menu and type of its live products in
 * the same transaction, each with an audit entry.
 */
export async function updateGroup(deps: DomainDeps, id: number, patch: Partial<GroupInput>, operator: Actor): Promise<GroupView> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const group = orNotFound(await findGroup(deps, id, { transaction, lock: true }), '二级分组不存在');
    const next = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const changes = diffFields(group.get({ plain: true }), next, GROUP_FIELDS);
    if (Object.keys(changes).length === 0) return;
    const records: AuditRecord[] = [{ entity_type: 'group', entity_id: id, action: 'update', changes }];
    if (changes.first_product_group_id) {
      const menu = orInvalid(await findMenu(deps, patch.first_product_group_id as number, { transaction }), 'first_product_group_id', '一级菜单不存在');
      if (menu.product_type === 'other') await assertUpstreamBound(deps, { groupId: id }, 'first_product_group_id', transaction);
      records.push(...(await replaceProducts(deps, { groupId: id }, { menuId: menu.id, type: menu.product_type }, 'move', transaction)));
    }
    group.set(next);
    await group.save({ transaction });
    await recordCatalogueAudit(deps, records, operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
  return getGroup(deps, id);
}

/** Deletes (softly) a group no live category or product occupies; otherwise 40901 naming them. */
export async function deleteGroup(deps: DomainDeps, id: number, operator: Actor): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const group = orNotFound(await findGroup(deps, id, { transaction, lock: true }), '二级分组不存在');
    const { ProductCategory, Product } = deps.db.models;
    const [categories, products] = await Promise.all([
      ProductCategory.count({ where: { second_product_group_id: id, deleted_at: null }, transaction }),
      Product.count({ where: { second_product_group_id: id, deleted_at: null }, transaction }),
    ]);
    if (categories > 0 || products > 0) {
      const parts = [categories > 0 ? `${categories} 个三级分类` : '', products > 0 ? `${products} 个商品` : ''].filter(Boolean).join('、');
      throw new AppError(ErrorCode.IN_USE, `二级分组“${group.name}”下仍有 ${parts}，请先移走或删除后再删除分组`, { categories, products });
    }
    group.deleted_at = new Date();
    await group.save({ transaction });
    await recordCatalogueAudit(deps, [{ entity_type: 'group', entity_id: id, action: 'delete', changes: { name: { old: group.name, new: null } } }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
}
