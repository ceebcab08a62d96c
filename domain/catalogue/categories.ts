import type { Actor } from '../../lib/actor.js';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { ProductCategoryRow } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';
import { type AuditRecord, diffFields, recordCatalogueAudit } from './audit.js';
import { publishCatalogueChange } from './catalogue-events.js';
import { findCategory, findGroup, findMenu, orInvalid, orNotFound } from './directory-rows.js';
import { replaceProducts } from './product-moves.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { likePattern, orderBy, pageSql, type SortSpec } from './sorting.js';
import { assertUpstreamBound } from './upstream-check.js';

export type CategoryView = {
  id: number;
  second_product_group_id: number;
  first_product_group_id: number;
  product_type: ProductType;
  name: string;
  description: string;
  is_visible: number;
  sort_order: number;
  product_count: number;
  created_at: Date;
  updated_at: Date;
};

export const CATEGORY_SORT_KEYS = ['sort_order', 'id', 'name', 'created_at'] as const;
export type CategorySortKey = (typeof CATEGORY_SORT_KEYS)[number];

export type CategoryListQuery = {
  page: number;
  page_size: number;
  second_product_group_id?: number | undefined;
  first_product_group_id?: number | undefined;
  is_visible?: boolean | undefined;
  keyword?: string | undefined;
  sort?: SortSpec<CategorySortKey> | undefined;
};

const CATEGORY_COLUMNS = `c.id, c.second_product_group_id, g.first_product_group_id, m.product_type, c.name, c.description, c.is_visible, c.sort_order,
  c.created_at, c.updated_at,
  (SELECT count(*) FROM products p WHERE p.product_group_id = c.id AND p.deleted_at IS NULL)::int AS product_count`;
const CATEGORY_FROM = 'product_categories c JOIN product_groups g ON g.id = c.second_product_group_id JOIN product_menus m ON m.id = g.first_product_group_id';

export async function listCategories(deps: DomainDeps, query: CategoryListQuery): Promise<{ rows: CategoryView[]; total: number }> {
  const conditions = ['c.deleted_at IS NULL'];
  const { values, param } = sqlParams();
  if (query.second_product_group_id !== undefined) {
    conditions.push(`c.second_product_group_id = ${param(query.second_product_group_id)}`);
  }
  if (query.first_product_group_id !== undefined) {
    conditions.push(`g.first_product_group_id = ${param(query.first_product_group_id)}`);
  }
  if (query.is_visible !== undefined) {
    conditions.push(`c.is_visible = ${param(query.is_visible ? 1 : 0)}`);
  }
  if (query.keyword) {
    conditions.push(`c.name ILIKE ${param(likePattern(query.keyword))}`);
  }
  const where = `WHERE ${conditions.join(' AND ')}`;
  const order = orderBy(query.sort, { sort_order: 'c.sort_order', id: 'c.id', name: 'c.name', created_at: 'c.created_at' }, { key: 'sort_order', direction: 'ASC' }, 'c.id');
  const [rows, counted] = await Promise.all([
    sqlRows<CategoryView>(deps, `SELECT ${CATEGORY_COLUMNS} FROM ${CATEGORY_FROM} ${where} ${order} ${pageSql(query)}`, values),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM ${CATEGORY_FROM} ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getCategory(deps: DomainDeps, id: number): Promise<CategoryView> {
  const row = await sqlOne<CategoryView>(deps, `SELECT ${CATEGORY_COLUMNS} FROM ${CATEGORY_FROM} WHERE c.id = $1 AND c.deleted_at IS NULL`, [id]);
  return orNotFound(row, '三级分类不存在');
}

export type CategoryInput = {
  second_product_group_id: number;
  name: string;
  description?: string | undefined;
  is_visible?: number | undefined;
  sort_order?: number | undefined;
};

const CATEGORY_FIELDS = ['second_product_group_id', 'name', 'description', 'is_visible', 'sort_order'] as const;

export async function createCategory(deps: DomainDeps, input: CategoryInput, operator: Actor): Promise<CategoryView> {
  const { ProductCategory } = deps.db.models;
  const id = await deps.db.sequelize.transaction(async (transaction) => {
    orInvalid(await findGroup(deps, input.second_product_group_id, { transaction }), 'second_product_group_id', '二级分组不存在');
    const sortOrder =
      input.sort_order ??
      ((await ProductCategory.max<number | null, ProductCategoryRow>('sort_order', { where: { second_product_group_id: input.second_product_group_id, deleted_at: null }, transaction })) ??
        0) + 1;
    const row = await ProductCategory.create(
      { second_product_group_id: input.second_product_group_id, name: input.name, description: input.description ?? '', is_visible: input.is_visible ?? 1, sort_order: sortOrder },
      { transaction },
    );
    const changes = diffFields(null, row.get({ plain: true }), CATEGORY_FIELDS);
    await recordCatalogueAudit(deps, [{ entity_type: 'category', entity_id: row.id, action: 'create', changes }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
    return row.id;
  });
  return getCategory(deps, id);
}

/**
 * Updates a category. Moving it to another group (`second_product_group_id`) re-derives the
 * group, menu and type of its live products in the same transaction, each with an audit entry.
 */
export async function updateCategory(deps: DomainDeps, id: number, patch: Partial<CategoryInput>, operator: Actor): Promise<CategoryView> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const category = orNotFound(await findCategory(deps, id, { transaction, lock: true }), '三级分类不存在');
    const next = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const changes = diffFields(category.get({ plain: true }), next, CATEGORY_FIELDS);
    if (Object.keys(changes).length === 0) return;
    const records: AuditRecord[] = [{ entity_type: 'category', entity_id: id, action: 'update', changes }];
    if (changes.second_product_group_id) {
      const group = orInvalid(await findGroup(deps, patch.second_product_group_id as number, { transaction }), 'second_product_group_id', '二级分组不存在');
      const menu = orInvalid(await findMenu(deps, group.first_product_group_id, { transaction }), 'second_product_group_id', '二级分组所属的一级菜单不存在');
      if (menu.product_type === 'other') await assertUpstreamBound(deps, { categoryId: id }, 'second_product_group_id', transaction);
      records.push(
        ...(await replaceProducts(deps, { categoryId: id }, { menuId: menu.id, type: menu.product_type, groupId: group.id }, 'move', transaction)),
      );
    }
    category.set(next);
    await category.save({ transaction });
    await recordCatalogueAudit(deps, records, operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
  return getCategory(deps, id);
}

/** Deletes (softly) a category no live product occupies; otherwise 40901 naming them. */
export async function deleteCategory(deps: DomainDeps, id: number, operator: Actor): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const category = orNotFound(await findCategory(deps, id, { transaction, lock: true }), '三级分类不存在');
    const products = await deps.db.models.Product.count({ where: { product_group_id: id, deleted_at: null }, transaction });
    if (products > 0) {
      throw new AppError(ErrorCode.IN_USE, `三级分类“${category.name}”下仍有 ${products} 个商品，请先移走或删除后再删除分类`, { products });
    }
    category.deleted_at = new Date();
    await category.save({ transaction });
    await recordCatalogueAudit(deps, [{ entity_type: 'category', entity_id: id, action: 'delete', changes: { name: { old: category.name, new: null } } }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
}
