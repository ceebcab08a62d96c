import type { ServiceStatus } from '../../db/models/service.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { readServiceViews, type ServiceView } from './service-view.js';
import { windowCountSql } from '../../db/window-count.js';

export const SERVICE_SORT_KEYS = ['id', 'created_at', 'next_due_at', 'price'] as const;
export type ServiceSortKey = (typeof SERVICE_SORT_KEYS)[number];

export type ServiceListQuery = {
  page: number;
  page_size: number;
  user_id?: number | undefined;
  status?: ServiceStatus | undefined;
  product_type?: ProductType | undefined;
  supplier_id?: number | undefined;
  /** Product name, hostname or IP (contains, case-insensitive). */
  keyword?: string | undefined;
  sort?: { key: ServiceSortKey; direction: 'ASC' | 'DESC' } | undefined;
};

/**
 * A page of services (client: their own; admin: anyone's), filtered on whitelisted columns and
 * sorted by a whitelisted key (default newest first, id as tiebreaker; due dates without a value last).
 */
export async function listServices(deps: DomainDeps, query: ServiceListQuery): Promise<{ rows: ServiceView[]; total: number }> {
  const where: string[] = [];
  const { values: params, param: bind } = sqlParams();
  if (query.user_id !== undefined) where.push(`s.user_id = ${bind(query.user_id)}`);
  if (query.status) where.push(`s.status = ${bind(query.status)}`);
  if (query.product_type) where.push(`s.product_type = ${bind(query.product_type)}`);
  if (query.supplier_id !== undefined) {
    // COALESCE(b.supplier_id, s.supplier_id) = $n, spelled out: the planner estimates each side from
    // the columns' statistics, so a supplier of most services walks the list's order and stops at the
    // window, where the COALESCE (guessed rare) joined every service to its binding (issue #35).
    const supplier = bind(query.supplier_id);
    where.push(`(b.supplier_id = ${supplier} OR (b.supplier_id IS NULL AND s.supplier_id = ${supplier}))`);
  }
  if (query.keyword) {
    const like = bind(`%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`(s.product_name ILIKE ${like} OR s.hostname ILIKE ${like} OR s.ip ILIKE ${like})`);
  }
  const filter = where.length > 0 ? where.join(' AND ') : 'TRUE';
  const sort = query.sort ?? { key: 'id', direction: 'DESC' as const };
  const order = sort.key === 'id' ? `s.id ${sort.direction}` : `s.${sort.key} ${sort.direction} NULLS LAST, s.id DESC`;
  const countParams = [...params];
  // The count walks the key's index whatever the sort (it answers min(matches, window) in any order).
  const [rows, counted] = await Promise.all([
    readServiceViews(deps, filter, params, `ORDER BY ${order} LIMIT ${query.page_size} OFFSET ${(query.page - 1) * query.page_size}`),
    sqlRows<{ n: number }>(
      deps,
      windowCountSql(`SELECT 1 FROM services s LEFT JOIN service_upstream_bindings b ON b.service_id = s.id WHERE ${filter} ORDER BY s.id DESC`),
      countParams,
    ),
  ]);
  return { rows, total: counted[0]?.n ?? 0 };
}
