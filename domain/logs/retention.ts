import type { AppConfig } from '../../lib/config.js';
import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { dropLogPartitionsBefore, isPartitionedLogTable } from './partitions.js';
import { throwIfCancelled } from '../../lib/cancellation.js';

/**
 * A log table the retention task trims. Other log tables join by adding a line here; names are
 * constants of this file, never input.
 */
export type RetentionTarget = {
  table: string;
  column: string;
  summaryKey: string;
  days: (config: AppConfig) => number;
  /** Extra SQL condition on rows that must survive regardless of age. */
  keep?: string;
};

export const RETENTION_TARGETS: RetentionTarget[] = [
  { table: 'task_runs', column: 'started_at', summaryKey: 'task_runs_deleted', days: (c) => c.retention.taskRunDays, keep: "status = 'running'" },
  { table: 'plugin_runtime_logs', column: 'created_at', summaryKey: 'plugin_runtime_logs_deleted', days: (c) => c.retention.pluginLogDays },
  { table: 'login_logs', column: 'created_at', summaryKey: 'login_logs_deleted', days: (c) => c.retention.loginLogDays },
  { table: 'notification_log', column: 'created_at', summaryKey: 'notification_log_deleted', days: (c) => c.retention.notificationLogDays },
  { table: 'api_request_logs', column: 'created_at', summaryKey: 'api_request_logs_deleted', days: (c) => c.retention.apiRequestLogDays },
  { table: 'system_logs', column: 'created_at', summaryKey: 'system_logs_deleted', days: (c) => c.retention.systemLogDays },
  // The admin audit (admin_audit_logs) is never trimmed: the database refuses to delete from it.
  // Keyed on expiry: an idempotency key is kept until it expires (24 h), not a day after.
  { table: 'idempotency_keys', column: 'expires_at', summaryKey: 'idempotency_keys_deleted', days: () => 0 },
  // Keyed on completion: a row not done yet (done_at NULL) is never trimmed, however old.
  { table: 'outbox', column: 'done_at', summaryKey: 'outbox_deleted', days: () => OUTBOX_DONE_RETENTION_DAYS },
  // Supplier health reads at most the last hour (domain/suppliers/health.ts); two days are kept to look back at an incident.
  { table: 'supplier_calls', column: 'created_at', summaryKey: 'supplier_calls_deleted', days: () => SUPPLIER_CALLS_RETENTION_DAYS },
];

/** Supplier calls (the health window's rows) are kept two days. */
const SUPPLIER_CALLS_RETENTION_DAYS = 2;

/** Done outbox rows are kept a week, to see what the relay did after an incident. */
const OUTBOX_DONE_RETENTION_DAYS = 7;

/** Deleted in batches so a large backlog never holds one long lock. */
const BATCH = 5000;

/**
 * Deletes the rows of `target` older than `cutoff`. A table partitioned by month
 * (`PARTITIONED_LOG_TABLES`) first loses the months wholly older than the cutoff (detached and
 * dropped: no DELETE); with `wholePartitionsOnly` that is all (the retention task: a month goes
 * once all of it is past the retention, so rows are kept up to a month longer than the days).
 * The rest is deleted in batches of BATCH rows (each its own statement, so no long lock), except
 * those `keep` protects. Table, column and condition are constants of the callers, never input.
 */
export async function trimTable(
  deps: DomainDeps,
  target: Pick<RetentionTarget, 'table' | 'column' | 'keep'>,
  cutoff: Date,
  options: { wholePartitionsOnly?: boolean } = {},
): Promise<number> {
  let total = 0;
  if (isPartitionedLogTable(target.table)) {
    total += (await dropLogPartitionsBefore(deps, target.table, cutoff)).rows;
    if (options.wholePartitionsOnly) return total;
  }
  const keep = target.keep ? ` AND NOT (${target.keep})` : '';
  // Ordered by the cut-off column, so the batch is a range of that column's index (every target
  // has one): a run reads the rows past retention, not the table (by id, a run with nothing to
  // delete, or only new rows near the old ones, walked the primary key filtering every younger
  // row). A plain table deletes the batch's ids as one array, found by the primary key (an `IN
  // (subquery)` of 5,000 ids was planned as a hash join over a sequential scan of the table); a
  // partitioned one by the partition key beside the id, so each row is found in its own month.
  const doomed = `SELECT id${isPartitionedLogTable(target.table) ? `, ${target.column}` : ''} FROM ${target.table}
      WHERE ${target.column} < $1${keep} ORDER BY ${target.column} LIMIT ${BATCH}`;
  const match = isPartitionedLogTable(target.table)
    ? `(id, ${target.column}) IN (SELECT id, ${target.column} FROM doomed)`
    : 'id = ANY (ARRAY(SELECT id FROM doomed))';
  const sql = `WITH doomed AS (${doomed}), deleted AS (DELETE FROM ${target.table} WHERE ${match} RETURNING 1)
    SELECT count(*)::int AS n FROM deleted`;
  for (;;) {
    throwIfCancelled();
    const row = await sqlOne<{ n: number }>(deps, sql, [cutoff]);
    const n = row?.n ?? 0;
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * Trims every log table by its retention (days from the environment): the partitioned ones by
 * whole months, the others in batches.
 */
export async function cleanUpLogs(deps: DomainDeps, now = new Date()): Promise<Record<string, number>> {
  const summary: Record<string, number> = {};
  for (const target of RETENTION_TARGETS) {
    const days = target.days(deps.config);
    summary[target.summaryKey] = await trimTable(deps, target, new Date(now.getTime() - days * 86_400_000), { wholePartitionsOnly: true });
    summary[`${target.table}_retention_days`] = days;
  }
  return summary;
}
