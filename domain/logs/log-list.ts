import { sqlRows } from '../../db/sql.js';
import { windowCountSql } from '../../db/window-count.js';
import { LOG_LIST_WINDOW } from '../../lib/paging.js';
import type { DomainDeps } from '../deps.js';

/** One log list: the columns, the table (or view) and the conditions with their bound values. */
export type LogListSpec = {
  select: string;
  from: string;
  /** What the count reads when it needs less than the rows (no join); `from` otherwise. */
  countFrom?: string;
  conditions: string[];
  values: unknown[];
  /**
   * The list's order: the order of an index of the table, so a page reads only its rows. Name
   * the columns with the table's alias (`l.id`): a bare name that is also an output column
   * (`id::int AS id`) orders by the output expression, which no index has (a sort of every row).
   */
  order: string;
  paging: { page: number; page_size: number };
};

/**
 * The page and its bounded total, both walking the list's index in the list's order: the
 * count is of the first LOG_LIST_WINDOW matching rows (`LIMIT` under the same `ORDER BY`), so
 * neither statement reads more than the window, however many rows the table holds.
 */
export async function listLogRows<T extends object>(deps: Pick<DomainDeps, 'db'>, spec: LogListSpec): Promise<{ rows: T[]; total: number }> {
  const where = spec.conditions.length ? `WHERE ${spec.conditions.join(' AND ')}` : '';
  // The route refuses a page past the window (logListQuery); a caller that does not gets the window's end, never a row past it.
  const offset = Math.min((spec.paging.page - 1) * spec.paging.page_size, LOG_LIST_WINDOW);
  const size = Math.min(spec.paging.page_size, LOG_LIST_WINDOW - offset);
  const n = spec.values.length;
  const [rows, counted] = await Promise.all([
    sqlRows<T>(deps, `SELECT ${spec.select} FROM ${spec.from} ${where} ORDER BY ${spec.order} LIMIT $${n + 1} OFFSET $${n + 2}`, [...spec.values, size, offset]),
    sqlRows<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM ${spec.countFrom ?? spec.from} ${where} ORDER BY ${spec.order}`, LOG_LIST_WINDOW), spec.values),
  ]);
  return { rows, total: counted[0]?.n ?? 0 };
}
