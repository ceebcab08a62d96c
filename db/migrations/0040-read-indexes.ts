import { concurrentIndexesMigration, type ConcurrentIndex } from './concurrent-index.js';

/**
 * Indexes of reads a person waits on, found at ten times a third year's data (issue #35 part 1,
 * docs/benchmarks.md "Years of business"); each lets the read follow the rows it shows or counts,
 * not the table:
 *
 * - `admin_audit_logs_target_id_idx`, `admin_audit_logs_failed_idx`: the audit list's filters on
 *   the merged outcome (`target_type`, `target_id`, `failed=1`) first read the rows that can match
 *   (`listAuditLogs`, domain/logs/admin-audit.ts); `target_type` has `admin_audit_logs_target_idx`.
 *   Without them each such filter walked every audit row with a lookup of its answer.
 * - `users_verification_list_idx`: the verification list (only users with a verification state,
 *   in its order); it read every user to find them.
 * - `services_active_due_idx`: the dashboard's renewals due, counted from the index alone.
 *
 * Built concurrently (the tables are live while the release before runs); indexes only, so it
 * contracts nothing.
 */
export const READ_INDEXES: ReadonlyArray<ConcurrentIndex> = [
  { name: 'admin_audit_logs_target_id_idx', on: `admin_audit_logs (target_id) INCLUDE (source, request_id)` },
  { name: 'admin_audit_logs_failed_idx', on: `admin_audit_logs (id) INCLUDE (source, request_id) WHERE status >= 400` },
  { name: 'users_verification_list_idx', on: `users (verification_updated_at DESC NULLS LAST, id DESC) WHERE verification_status IS NOT NULL` },
  { name: 'services_active_due_idx', on: `services (next_due_at) WHERE status = 'active'` },
];

export const migration0040ReadIndexes = concurrentIndexesMigration('0040-read-indexes', READ_INDEXES);
