import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';

/**
 * The dashboard figures kept in the transaction of the write (migration 0044, docs/operations.md
 * "Dashboard"): triggers on `services`, `invoices` and `refunds` insert delta rows
 * (`service_status_deltas`, `daily_money_deltas`) in the writer's transaction, and a read sums
 * them. This task folds them: each group of rows (a status; a day, source and invoice type) with
 * more than one row becomes one row of its sums, in one statement per table (the rows it deletes
 * and the row it inserts commit together, so every read sees either the rows or their sum).
 * Writers only insert and never touch a row it deletes: nothing waits and nothing is lost. Two
 * folds at once stay exact too (the second skips the rows the first deleted), and the task runs
 * one at a time anyway.
 */
export async function foldDashboardFigures(deps: DomainDeps): Promise<{ service_status_rows: number; daily_money_rows: number }> {
  const statuses = await sqlOne<{ folded: number }>(
    deps,
    `WITH gone AS (
       DELETE FROM service_status_deltas WHERE status IN (SELECT status FROM service_status_deltas GROUP BY status HAVING count(*) > 1)
       RETURNING status, delta),
     kept AS (INSERT INTO service_status_deltas (status, delta) SELECT status, sum(delta) FROM gone GROUP BY status RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS folded`,
    [],
  );
  const days = await sqlOne<{ folded: number }>(
    deps,
    `WITH gone AS (
       DELETE FROM daily_money_deltas WHERE (day, source, type) IN (SELECT day, source, type FROM daily_money_deltas GROUP BY 1, 2, 3 HAVING count(*) > 1)
       RETURNING day, source, type, amount, n),
     kept AS (INSERT INTO daily_money_deltas (day, source, type, amount, n) SELECT day, source, type, sum(amount), sum(n) FROM gone GROUP BY 1, 2, 3 RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS folded`,
    [],
  );
  return { service_status_rows: statuses?.folded ?? 0, daily_money_rows: days?.folded ?? 0 };
}

/** The active services now: the sum of the status's delta rows (as exact as `count(*)`, read in a few rows). */
export const ACTIVE_SERVICES_SQL = `SELECT COALESCE(sum(delta), 0)::int FROM service_status_deltas WHERE status = 'active'`;
