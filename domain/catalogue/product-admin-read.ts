import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { ProductStatus } from '../../db/models/catalogue.js';
import type { PluginStatus } from '../../db/models/plugin.js';
import type { DomainDeps } from '../deps.js';
import { type AuditEntry, listCatalogueAudit } from './audit.js';
import type { ConfigOptionItem } from './config-options.js';
import { orNotFound } from './directory-rows.js';
import { type ProductBindings, productBindings } from './product-bindings.js';
import { type PricingMap, primaryPriceSql } from './pricing-map.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { likePattern, orderBy, pageSql, type SortSpec } from './sorting.js';

/** The columns a product list needs (no description, no config options). */
export type ProductListRow = {
  id: number;
  name: string;
  display_name: string;
  product_type: ProductType;
  first_product_group_id: number;
  second_product_group_id: number | null;
  product_group_id: number | null;
  menu_name: string;
  group_name: string | null;
  category_name: string | null;
  pricing: PricingMap;
  stock_control: boolean;
  stock_qty: number;
  status: ProductStatus;
  sort_order: number;
  plugin_key: string | null;
  created_at: Date;
  updated_at: Date;
};

export const ADMIN_PRODUCT_SORT_KEYS = ['sort_order', 'id', 'name', 'price', 'created_at', 'updated_at'] as const;
export type AdminProductSortKey = (typeof ADMIN_PRODUCT_SORT_KEYS)[number];

export type AdminProductListQuery = {
  page: number;
  page_size: number;
  first_product_group_id?: number | undefined;
  second_product_group_id?: number | undefined;
  product_group_id?: number | undefined;
  status?: ProductStatus | undefined;
  product_type?: ProductType | undefined;
  keyword?: string | undefined;
  sort?: SortSpec<AdminProductSortKey> | undefined;
};

const PRODUCT_FROM = `products p
  JOIN product_menus m ON m.id = p.first_product_group_id
  LEFT JOIN product_groups g ON g.id = p.second_product_group_id
  LEFT JOIN product_categories c ON c.id = p.product_group_id
  LEFT JOIN product_upstream_bindings b ON b.product_id = p.id
  LEFT JOIN plugins pl ON pl.id = b.plugin_id`;

const LIST_COLUMNS = `p.id, p.name, p.display_name, p.product_type, p.first_product_group_id, p.second_product_group_id, p.product_group_id,
  m.name AS menu_name, g.name AS group_name, c.name AS category_name, p.pricing, p.stock_control, p.stock_qty, p.status, p.sort_order,
  pl.key AS plugin_key, p.created_at, p.updated_at`;

export const PRODUCT_SORT_COLUMNS = {
  sort_order: 'p.sort_order',
  id: 'p.id',
  name: 'p.name',
  price: primaryPriceSql('p.pricing'),
  created_at: 'p.created_at',
  updated_at: 'p.updated_at',
} as const;

/** The admin product list: every live product (any status), with filters and a whitelisted sort. */
export async function listAdminProducts(deps: DomainDeps, query: AdminProductListQuery): Promise<{ rows: ProductListRow[]; total: number }> {
  const conditions = ['p.deleted_at IS NULL'];
  const { values, param } = sqlParams();
  const filters = [
    ['first_product_group_id', 'p.first_product_group_id'],
    ['second_product_group_id', 'p.second_product_group_id'],
    ['product_group_id', 'p.product_group_id'],
    ['status', 'p.status'],
    ['product_type', 'p.product_type'],
  ] as const;
  for (const [key, column] of filters) {
    if (query[key] === undefined) continue;
    conditions.push(`${column} = ${param(query[key])}`);
  }
  if (query.keyword) {
    const id = /^\d{1,9}$/.test(query.keyword) ? Number(query.keyword) : null;
    const keyword = param(likePattern(query.keyword));
    conditions.push(`(p.name ILIKE ${keyword} OR p.display_name ILIKE ${keyword}${id ? ` OR p.id = ${param(id)}` : ''})`);
  }
  const where = `WHERE ${conditions.join(' AND ')}`;
  const order = orderBy(query.sort, PRODUCT_SORT_COLUMNS, { key: 'sort_order', direction: 'ASC' }, 'p.id');
  const [rows, counted] = await Promise.all([
    sqlRows<ProductListRow>(deps, `SELECT ${LIST_COLUMNS} FROM ${PRODUCT_FROM} ${where} ${order} ${pageSql(query)}`, values),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM products p ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type AdminProductDetail = ProductListRow & {
  description: string;
  service_type_code: ProductType;
  first_product_group_code: string;
  config_options: ConfigOptionItem[];
  purchase_template: string | null;
  console_template: string | null;
  binding_plugin_id: number | null;
  supplier_id: number | null;
  provider_key: string | null;
  upstream_product_id: string | null;
  config_template: Record<string, unknown> | null;
  provisioning_policy: Record<string, unknown> | null;
  plugin_slug: string | null;
  plugin_name: string | null;
  plugin_status: PluginStatus | null;
  plugin_domain: string | null;
  plugin_extra: unknown;
  has_binding: boolean;
  audit: { entries: AuditEntry[]; total: number };
  /** The routing policy and every binding in order (the first one, then the further ones). */
  upstream: ProductBindings;
};

/** How many audit entries the detail shows; the rest are in the audit list. */
export const DETAIL_AUDIT_ENTRIES = 5;

export async function getAdminProduct(deps: DomainDeps, id: number): Promise<AdminProductDetail> {
  const [row, audit, upstream] = await Promise.all([
    sqlOne<Omit<AdminProductDetail, 'audit' | 'upstream'>>(
      deps,
      `SELECT ${LIST_COLUMNS}, p.description, p.service_type_code, m.code AS first_product_group_code, p.config_options,
              p.purchase_template, p.console_template, b.product_id IS NOT NULL AS has_binding, b.plugin_id AS binding_plugin_id,
              b.supplier_id, b.provider_key, b.upstream_product_id, b.config_template, b.provisioning_policy,
              pl.slug AS plugin_slug, pl.name AS plugin_name, pl.status AS plugin_status, pl.domain AS plugin_domain,
              pl.manifest->'info'->'extra' AS plugin_extra
         FROM ${PRODUCT_FROM} WHERE p.id = $1 AND p.deleted_at IS NULL`,
      [id],
    ),
    listCatalogueAudit(deps, { page: 1, page_size: DETAIL_AUDIT_ENTRIES, entity_type: 'product', entity_id: id }),
    productBindings(deps, id),
  ]);
  const product = orNotFound(row, '商品不存在');
  return { ...product, audit: { entries: audit.rows, total: audit.total }, upstream: upstream ?? { productId: id, policy: 'priority', bindings: [] } };
}
