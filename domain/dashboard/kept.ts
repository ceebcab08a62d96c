import { foldDeltaRows } from '../../db/delta-rows.js';
import type { DomainDeps } from '../deps.js';

/**
 * The dashboard figures kept in the transaction of the write (migrations 0044 and 0051,
 * docs/operations.md "Dashboard"): triggers on `services`, `invoices`, `refunds` and `tickets`
 * insert delta rows (`service_status_deltas`, `daily_money_deltas`, `ticket_status_deltas`) in
 * the writer's transaction, and a read sums them. This task folds each table's rows per key (a status; a day, source and invoice type)
 * with `foldDeltaRows` (db/delta-rows.ts): every read answers the same before and after.
 */
export async function foldDashboardFigures(deps: DomainDeps): Promise<{ service_status_rows: number; daily_money_rows: number; ticket_status_rows: number }> {
  const statuses = await foldDeltaRows(deps, { table: 'service_status_deltas', keys: ['status'], sums: ['delta'] });
  const days = await foldDeltaRows(deps, { table: 'daily_money_deltas', keys: ['day', 'source', 'type'], sums: ['amount', 'n'] });
  const tickets = await foldDeltaRows(deps, { table: 'ticket_status_deltas', keys: ['status'], sums: ['delta'] });
  return { service_status_rows: statuses.folded, daily_money_rows: days.folded, ticket_status_rows: tickets.folded };
}

/** The active services now: the sum of the status's delta rows (as exact as `count(*)`, read in a few rows). */
export const ACTIVE_SERVICES_SQL = `SELECT COALESCE(sum(delta), 0)::int FROM service_status_deltas WHERE status = 'active'`;

/** The open tickets now (open or awaiting the staff after a customer's reply): the sum of their statuses' delta rows. */
export const OPEN_TICKETS_SQL = `SELECT COALESCE(sum(delta), 0)::int AS n FROM ticket_status_deltas WHERE status IN ('open', 'customer_reply')`;
