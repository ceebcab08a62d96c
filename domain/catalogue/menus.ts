import type { Actor } from '../../lib/actor.js';
import { randomBytes } from 'node:crypto';
import { UniqueConstraintError } from 'sequelize';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { ProductMenuRow } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';
import { type AuditRecord, diffFields, recordCatalogueAudit } from './audit.js';
import { publishCatalogueChange } from './catalogue-events.js';
import { findMenu, orNotFound } from './directory-rows.js';
import { replaceProducts } from './product-moves.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { likePattern, orderBy, pageSql, type SortSpec } from './sorting.js';
import { assertUpstreamBound } from './upstream-check.js';

export type MenuView = {
  id: number;
  code: string;
  name: string;
  icon: string;
  product_type: ProductType;
  is_visible: number;
  sort_order: number;
  group_count: number;
  product_count: number;
  created_at: Date;
  updated_at: Date;
};

export const MENU_SORT_KEYS = ['sort_order', 'id', 'name', 'created_at'] as const;
export type MenuSortKey = (typeof MENU_SORT_KEYS)[number];

export type MenuListQuery = {
  page: number;
  page_size: number;
  product_type?: ProductType | undefined;
  is_visible?: boolean | undefined;
  keyword?: string | undefined;
  sort?: SortSpec<MenuSortKey> | undefined;
};

const MENU_COLUMNS = `m.id, m.code, m.name, m.icon, m.product_type, m.is_visible, m.sort_order, m.created_at, m.updated_at,
  (SELECT count(*) FROM product_groups g WHERE g.first_product_group_id = m.id AND g.deleted_at IS NULL)::int AS group_count,
  (SELECT count(*) FROM products p WHERE p.first_product_group_id = m.id AND p.deleted_at IS NULL)::int AS product_count`;

export async function listMenus(deps: DomainDeps, query: MenuListQuery): Promise<{ rows: MenuView[]; total: number }> {
  const conditions = ['m.deleted_at IS NULL'];
  const { values, param } = sqlParams();
  if (query.product_type) {
    conditions.push(`m.product_type = ${param(query.product_type)}`);
  }
  if (query.is_visible !== undefined) {
    conditions.push(`m.is_visible = ${param(query.is_visible ? 1 : 0)}`);
  }
  if (query.keyword) {
    const keyword = param(likePattern(query.keyword));
    conditions.push(`(m.name ILIKE ${keyword} OR m.code ILIKE ${keyword})`);
  }
  const where = `WHERE ${conditions.join(' AND ')}`;
  const order = orderBy(query.sort, { sort_order: 'm.sort_order', id: 'm.id', name: 'm.name', created_at: 'm.created_at' }, { key: 'sort_order', direction: 'ASC' }, 'm.id');
  const [rows, counted] = await Promise.all([
    sqlRows<MenuView>(deps, `SELECT ${MENU_COLUMNS} FROM product_menus m ${where} ${order} ${pageSql(query)}`, values),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM product_menus m ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getMenu(deps: DomainDeps, id: number): Promise<MenuView> {
  const row = await sqlOne<MenuView>(deps, `SELECT ${MENU_COLUMNS} FROM product_menus m WHERE m.id = $1 AND m.deleted_at IS NULL`, [id]);
  return orNotFound(row, '一级菜单不存在');
}

export type MenuInput = { name: string; icon?: string | undefined; product_type: ProductType; is_visible?: number | undefined; sort_order?: number | undefined };

/** `menu_` and 8 base-36 characters: never one of the product types by construction. */
function generateMenuCode(): string {
  const bytes = randomBytes(8);
  return `menu_${[...bytes].map((b) => (b % 36).toString(36)).join('')}`;
}

const MENU_FIELDS = ['code', 'name', 'icon', 'product_type', 'is_visible', 'sort_order'] as const;

/**
 * Creates a first-level menu; the service generates its `code`. `code` may be given only by
 * internal callers (demo seeder) that need a stable one. Without `sort_order` it goes last.
 */
export async function createMenu(deps: DomainDeps, input: MenuInput & { code?: string }, operator: Actor): Promise<MenuView> {
  const { ProductMenu } = deps.db.models;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const id = await deps.db.sequelize.transaction(async (transaction) => {
        const sortOrder = input.sort_order ?? ((await ProductMenu.max<number | null, ProductMenuRow>('sort_order', { where: { deleted_at: null }, transaction })) ?? 0) + 1;
        const row = await ProductMenu.create(
          {
            code: input.code ?? generateMenuCode(),
            name: input.name,
            icon: input.icon ?? '',
            product_type: input.product_type,
            is_visible: input.is_visible ?? 1,
            sort_order: sortOrder,
          },
          { transaction },
        );
        const changes = diffFields(null, row.get({ plain: true }), MENU_FIELDS);
        await recordCatalogueAudit(deps, [{ entity_type: 'menu', entity_id: row.id, action: 'create', changes }], operator, transaction);
        await publishCatalogueChange(deps, transaction);
        return row.id;
      });
      return getMenu(deps, id);
    } catch (error) {
      // A generated code colliding is astronomically rare; a given code colliding is the caller's.
      if (!(error instanceof UniqueConstraintError) || input.code || attempt >= 3) throw error;
    }
  }
}

export type MenuPatch = Partial<MenuInput>;

/**
 * Updates a menu. A new `product_type` is written to every live product under the menu
 * (`product_type` and `service_type_code`) in the same transaction, each with an audit entry;
 * becoming `other` is refused while a product lacks an enabled upstream plugin.
 */
export async function updateMenu(deps: DomainDeps, id: number, patch: MenuPatch, operator: Actor): Promise<MenuView> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const menu = orNotFound(await findMenu(deps, id, { transaction, lock: true }), '一级菜单不存在');
    const before = menu.get({ plain: true });
    const next = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const changes = diffFields(before, next, MENU_FIELDS);
    if (Object.keys(changes).length === 0) return;
    const typeChange = changes.product_type ? (patch.product_type as ProductType) : null;
    if (typeChange === 'other') await assertUpstreamBound(deps, { menuId: id }, 'product_type', transaction);
    menu.set(next);
    await menu.save({ transaction });
    const records: AuditRecord[] = [{ entity_type: 'menu', entity_id: id, action: 'update', changes }];
    if (typeChange) records.push(...(await replaceProducts(deps, { menuId: id }, { menuId: id, type: typeChange }, 'retype', transaction)));
    await recordCatalogueAudit(deps, records, operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
  return getMenu(deps, id);
}

/** Deletes (softly) a menu that no live group or product occupies; otherwise 40901 naming them. */
export async function deleteMenu(deps: DomainDeps, id: number, operator: Actor): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const menu = orNotFound(await findMenu(deps, id, { transaction, lock: true }), '一级菜单不存在');
    const { ProductGroup, Product } = deps.db.models;
    const [groups, products] = await Promise.all([
      ProductGroup.count({ where: { first_product_group_id: id, deleted_at: null }, transaction }),
      Product.count({ where: { first_product_group_id: id, deleted_at: null }, transaction }),
    ]);
    if (groups > 0 || products > 0) {
      const parts = [groups > 0 ? `${groups} 个二级分组` : '', products > 0 ? `${products} 个商品` : ''].filter(Boolean).join('、');
      throw new AppError(ErrorCode.IN_USE, `一级菜单“${menu.name}”下仍有 ${parts}，请先移走或删除后再删除菜单`, { groups, products });
    }
    menu.deleted_at = new Date();
    await menu.save({ transaction });
    await recordCatalogueAudit(deps, [{ entity_type: 'menu', entity_id: id, action: 'delete', changes: { name: { old: menu.name, new: null } } }], operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
}
