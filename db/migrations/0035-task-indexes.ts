import { concurrentIndexesMigration, type ConcurrentIndex } from './concurrent-index.js';

/**
 * Indexes of the recurring tasks (issue #35): each lets a task read only the rows it has to
 * act on, so its cost follows the work due and not the size of the table (docs/scheduling.md
 * "What each task reads").
 *
 * - `tickets_reminded_idx`, `tickets_auto_closed_idx`: `tickets.auto_close` offers the notices
 *   of the last 3 days' reminders and auto-closes again; without them it read every closed ticket.
 * - `services_overdue_suspension_idx`: `services.unsuspend_renewed` (every 15 minutes) and
 *   `services.terminate_overdue` read the overdue suspensions only.
 * - `services_terminated_idx`: `notifications.account_notices` (hourly) reads the terminations of
 *   the last 3 days; through `services_status_idx` it read every terminated service ever.
 * - `service_upstream_bindings_supplier_service_idx`: host sync and reconciliation page one
 *   supplier's bound services by service id (keyset) instead of reading them all at once.
 * - `service_upstream_bindings_bill_idx`: reconciliation looks each upstream bill up among the
 *   bindings; without it each bill was a scan of the supplier's bindings.
 *
 * Built `CONCURRENTLY` (the tables are live and large): the runner (`db/migrate.ts`, umzug)
 * wraps no transaction around a migration, and each statement here is its own query. A build
 * interrupted leaves an INVALID index, which `IF NOT EXISTS` would keep: it is dropped and built
 * again.
 */
export const TASK_INDEXES: ReadonlyArray<ConcurrentIndex> = [
  { name: 'tickets_reminded_idx', on: `tickets (reminded_at) WHERE status = 'answered' AND reminded_at IS NOT NULL` },
  { name: 'tickets_auto_closed_idx', on: `tickets (closed_at) WHERE closed_by = 'auto'` },
  { name: 'services_overdue_suspension_idx', on: `services (next_due_at) WHERE status = 'suspended' AND suspend_reason = 'overdue'` },
  { name: 'services_terminated_idx', on: `services (terminated_at) WHERE status = 'terminated'` },
  { name: 'service_upstream_bindings_supplier_service_idx', on: `service_upstream_bindings (supplier_id, service_id) WHERE upstream_host_id IS NOT NULL` },
  { name: 'service_upstream_bindings_bill_idx', on: `service_upstream_bindings (supplier_id, upstream_invoice_id) WHERE upstream_invoice_id IS NOT NULL` },
];

export const migration0035TaskIndexes = concurrentIndexesMigration('0035-task-indexes', TASK_INDEXES);
