import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { WorkHome } from './kinds.js';
import { windowCountSql } from '../../db/window-count.js';

/** Filters every admin list of upstream work takes (columns of the home's row, alias `w`). */
export type WorkListFilters = {
  page: number;
  page_size: number;
  /** Equality filters: column of `w` → value (undefined: no filter). */
  equal: Readonly<Record<string, string | number | undefined>>;
  /** Only unfinished work whose stage has not moved for this many minutes. */
  stuck_minutes?: number | undefined;
};

/**
 * One page of a home's work for ops, newest stage change first: `select` is the SELECT list and
 * joins over the home's table aliased `w` (no WHERE: the page's rows are joined to it by id). The
 * same filter, "stuck" rule and paging for every kind (provisionings, service orders).
 */
export async function listWork<Row extends object>(
  deps: DomainDeps,
  home: Pick<WorkHome, 'table' | 'open'>,
  select: string,
  filters: WorkListFilters,
): Promise<{ rows: Row[]; total: number }> {
  const { values, param } = sqlParams();
  const where: string[] = [];
  for (const [column, value] of Object.entries(filters.equal)) {
    if (value !== undefined && value !== '' && value !== 0) where.push(`w.${column} = ${param(value)}`);
  }
  const changed = 'COALESCE(w.stage_changed_at, w.created_at)';
  if (filters.stuck_minutes !== undefined) {
    where.push(`w.status = ANY(${param(home.open)}::text[]) AND ${changed} < now() - make_interval(mins => ${param(filters.stuck_minutes)})`);
  }
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  // The page's keys first, from the table alone along its order's index, then the joins for
  // those rows only: a deep page skips index entries, not joined rows (issue #35).
  const order = `ORDER BY ${changed} DESC, w.id DESC`;
  const keys = `SELECT w.id FROM ${home.table} w ${filter} ${order} LIMIT ${filters.page_size} OFFSET ${(filters.page - 1) * filters.page_size}`;
  const [rows, counted] = await Promise.all([
    sqlRows<Row>(deps, `${select} JOIN (${keys}) AS page ON page.id = w.id ${order}`, values),
    // The stuck filter matches most unfinished work: counted along the page's index (read by a
    // sequential scan until the window filled, issue #35), the other filters by their own indexes.
    sqlOne<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM ${home.table} w ${filter}${filters.stuck_minutes !== undefined ? ` ${order}` : ''}`), values),
  ]);
  return { rows, total: counted?.n ?? 0 };
}
