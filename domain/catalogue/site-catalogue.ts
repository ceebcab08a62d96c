import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { ConfigOptionItem } from './config-options.js';
import { type PricingMap } from './pricing-map.js';
import { PRODUCT_SORT_COLUMNS } from './product-admin-read.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { likePattern, orderBy, pageSql, type SortSpec } from './sorting.js';

/**
 * The storefront's reads. A product is listed when it is not deleted, `active`, and its menu,
 * group and category (where it has them) are visible; counts count listed products only.
 */
const LISTED_FROM = `products p
  JOIN product_menus m ON m.id = p.first_product_group_id
  LEFT JOIN product_groups g ON g.id = p.second_product_group_id
  LEFT JOIN product_categories c ON c.id = p.product_group_id`;
const LISTED_WHERE = `p.deleted_at IS NULL AND p.status = 'active' AND m.deleted_at IS NULL AND m.is_visible = 1
  AND (g.id IS NULL OR g.is_visible = 1) AND (c.id IS NULL OR c.is_visible = 1)`;
const LISTED_CTE = `WITH listed AS (
  SELECT p.first_product_group_id AS menu_id, p.second_product_group_id AS group_id, p.product_group_id AS category_id
    FROM ${LISTED_FROM} WHERE ${LISTED_WHERE})`;

type Page = { page: number; page_size: number };

export type SiteMenuRow = { id: number; code: string; name: string; icon: string; product_type: ProductType; sort_order: number; group_count: number; product_count: number };

export async function listSiteMenus(deps: DomainDeps, query: Page): Promise<{ rows: SiteMenuRow[]; total: number }> {
  const where = 'WHERE m.deleted_at IS NULL AND m.is_visible = 1';
  const [rows, counted] = await Promise.all([
    sqlRows<SiteMenuRow>(
      deps,
      `${LISTED_CTE}
       SELECT m.id, m.code, m.name, m.icon, m.product_type, m.sort_order,
              (SELECT count(*) FROM product_groups g WHERE g.first_product_group_id = m.id AND g.deleted_at IS NULL AND g.is_visible = 1)::int AS group_count,
              (SELECT count(*) FROM listed l WHERE l.menu_id = m.id)::int AS product_count
         FROM product_menus m ${where} ORDER BY m.sort_order, m.id ${pageSql(query)}`,
      [],
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM product_menus m ${where}`, []),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type SiteGroupRow = { id: number; first_product_group_id: number; name: string; description: string; sort_order: number; category_count: number; product_count: number };

export async function listSiteGroups(deps: DomainDeps, query: Page & { first_product_group_id?: number | undefined }): Promise<{ rows: SiteGroupRow[]; total: number }> {
  const conditions = ['g.deleted_at IS NULL', 'g.is_visible = 1', 'm.deleted_at IS NULL', 'm.is_visible = 1'];
  const { values, param } = sqlParams();
  if (query.first_product_group_id !== undefined) conditions.push(`g.first_product_group_id = ${param(query.first_product_group_id)}`);
  const from = `product_groups g JOIN product_menus m ON m.id = g.first_product_group_id WHERE ${conditions.join(' AND ')}`;
  const [rows, counted] = await Promise.all([
    sqlRows<SiteGroupRow>(
      deps,
      `${LISTED_CTE}
       SELECT g.id, g.first_product_group_id, g.name, g.description, g.sort_order,
              (SELECT count(*) FROM product_categories c WHERE c.second_product_group_id = g.id AND c.deleted_at IS NULL AND c.is_visible = 1)::int AS category_count,
              (SELECT count(*) FROM listed l WHERE l.group_id = g.id)::int AS product_count
         FROM ${from} ORDER BY m.sort_order, m.id, g.sort_order, g.id ${pageSql(query)}`,
      values,
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM ${from}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type SiteCategoryRow = { id: number; second_product_group_id: number; first_product_group_id: number; name: string; description: string; sort_order: number; product_count: number };

export async function listSiteCategories(
  deps: DomainDeps,
  query: Page & { second_product_group_id?: number | undefined; first_product_group_id?: number | undefined },
): Promise<{ rows: SiteCategoryRow[]; total: number }> {
  const conditions = ['c.deleted_at IS NULL', 'c.is_visible = 1', 'g.deleted_at IS NULL', 'g.is_visible = 1', 'm.deleted_at IS NULL', 'm.is_visible = 1'];
  const { values, param } = sqlParams();
  if (query.second_product_group_id !== undefined) conditions.push(`c.second_product_group_id = ${param(query.second_product_group_id)}`);
  if (query.first_product_group_id !== undefined) conditions.push(`g.first_product_group_id = ${param(query.first_product_group_id)}`);
  const from = `product_categories c JOIN product_groups g ON g.id = c.second_product_group_id JOIN product_menus m ON m.id = g.first_product_group_id
    WHERE ${conditions.join(' AND ')}`;
  const [rows, counted] = await Promise.all([
    sqlRows<SiteCategoryRow>(
      deps,
      `${LISTED_CTE}
       SELECT c.id, c.second_product_group_id, g.first_product_group_id, c.name, c.description, c.sort_order,
              (SELECT count(*) FROM listed l WHERE l.category_id = c.id)::int AS product_count
         FROM ${from} ORDER BY m.sort_order, m.id, g.sort_order, g.id, c.sort_order, c.id ${pageSql(query)}`,
      values,
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM ${from}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type SiteProductRow = {
  id: number;
  name: string;
  display_name: string;
  description: string;
  product_type: ProductType;
  first_product_group_id: number;
  second_product_group_id: number | null;
  product_group_id: number | null;
  pricing: PricingMap;
  stock_control: boolean;
  stock_qty: number;
  sort_order: number;
  purchase_template: string | null;
  plugin_purchase_schema: unknown;
};

export const SITE_PRODUCT_SORT_KEYS = ['sort_order', 'price', 'name', 'id', 'created_at'] as const;
export type SiteProductSortKey = (typeof SITE_PRODUCT_SORT_KEYS)[number];

export type SiteProductListQuery = Page & {
  first_product_group_id?: number | undefined;
  second_product_group_id?: number | undefined;
  product_group_id?: number | undefined;
  product_type?: ProductType | undefined;
  keyword?: string | undefined;
  sort?: SortSpec<SiteProductSortKey> | undefined;
};

const BINDING_JOIN = `LEFT JOIN product_upstream_bindings b ON b.product_id = p.id
  LEFT JOIN plugins pl ON pl.id = b.plugin_id AND pl.status = 'enabled' AND pl.domain = 'upstream'`;

export async function listSiteProducts(deps: DomainDeps, query: SiteProductListQuery): Promise<{ rows: SiteProductRow[]; total: number }> {
  const conditions = [LISTED_WHERE];
  const { values, param } = sqlParams();
  for (const [key, column] of [
    ['first_product_group_id', 'p.first_product_group_id'],
    ['second_product_group_id', 'p.second_product_group_id'],
    ['product_group_id', 'p.product_group_id'],
    ['product_type', 'p.product_type'],
  ] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${column} = ${param(query[key])}`);
  }
  if (query.keyword) {
    const keyword = param(likePattern(query.keyword));
    conditions.push(`(p.name ILIKE ${keyword} OR p.display_name ILIKE ${keyword})`);
  }
  const where = `WHERE ${conditions.join(' AND ')}`;
  const order = orderBy(query.sort, PRODUCT_SORT_COLUMNS, { key: 'sort_order', direction: 'ASC' }, 'p.id');
  const [rows, counted] = await Promise.all([
    sqlRows<SiteProductRow>(
      deps,
      `SELECT p.id, p.name, p.display_name, left(p.description, 120) AS description, p.product_type, p.first_product_group_id,
              p.second_product_group_id, p.product_group_id, p.pricing, p.stock_control, p.stock_qty, p.sort_order, p.purchase_template,
              pl.manifest->'info'->'extra'->'purchase_schema' AS plugin_purchase_schema
         FROM ${LISTED_FROM} ${BINDING_JOIN} ${where} ${order} ${pageSql(query)}`,
      values,
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM ${LISTED_FROM} ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type SiteProductDetailRow = Omit<SiteProductRow, 'plugin_purchase_schema'> & {
  first_product_group_code: string;
  menu_name: string;
  group_name: string | null;
  category_name: string | null;
  config_options: ConfigOptionItem[];
  console_template: string | null;
  provider_key: string | null;
  plugin_key: string | null;
  plugin_extra: unknown;
  updated_at: Date;
};

/** A listed product with what its storefront page needs; null when absent or unlisted. */
export async function findSiteProduct(deps: DomainDeps, id: number): Promise<SiteProductDetailRow | null> {
  return sqlOne<SiteProductDetailRow>(
    deps,
    `SELECT p.id, p.name, p.display_name, p.description, p.product_type, p.first_product_group_id, m.code AS first_product_group_code,
            m.name AS menu_name, p.second_product_group_id, g.name AS group_name, p.product_group_id, c.name AS category_name,
            p.pricing, p.config_options, p.stock_control, p.stock_qty, p.sort_order, p.purchase_template, p.console_template,
            CASE WHEN pl.id IS NULL THEN NULL ELSE b.provider_key END AS provider_key, pl.key AS plugin_key,
            pl.manifest->'info'->'extra' AS plugin_extra, p.updated_at
       FROM ${LISTED_FROM} ${BINDING_JOIN} WHERE p.id = $1 AND ${LISTED_WHERE}`,
    [id],
  );
}

/** How many products the home page features: the first listed ones in storefront order. */
export const HOME_FEATURED_PRODUCTS = 8;
/** Menus on the home page (visible ones in order); more are reached through the menu list. */
export const HOME_MENUS = 20;
