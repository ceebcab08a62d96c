/**
 * Stored vocabularies of reconciliation with the supplier (migration 0031). The tables are
 * written and read through `db/sql.ts` (sets of rows, upserts): no Sequelize model.
 */
export const RECONCILIATION_FINDING_KINDS = [
  'unknown_upstream_host',
  'missing_upstream',
  'upstream_suspended',
  'upstream_expired',
  'due_date_mismatch',
  'unmatched_upstream_charge',
  'paid_after_failover',
  'live_after_failover',
] as const;
export type ReconciliationFindingKind = (typeof RECONCILIATION_FINDING_KINDS)[number];

export const RECONCILIATION_FINDING_STATES = ['open', 'acknowledged', 'resolved'] as const;
export type ReconciliationFindingState = (typeof RECONCILIATION_FINDING_STATES)[number];

export const RECONCILIATION_RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type ReconciliationRunStatus = (typeof RECONCILIATION_RUN_STATUSES)[number];

/** A `reconciliation_findings` row as `db/sql.ts` reads it (BIGINT ids and NUMERIC as strings). */
export type ReconciliationFindingRow = {
  id: string;
  supplier_id: number;
  kind: ReconciliationFindingKind;
  subject_key: string;
  service_id: number | null;
  upstream_host_id: string | null;
  upstream_bill_id: string | null;
  amount: string | null;
  ours: Record<string, unknown>;
  theirs: Record<string, unknown>;
  state: ReconciliationFindingState;
  first_seen_at: Date;
  last_seen_at: Date;
  times_seen: number;
  last_run_id: string;
  acknowledged_at: Date | null;
  acknowledged_by: number | null;
  resolved_at: Date | null;
  resolved_by_type: 'admin' | 'system' | null;
  resolved_by_id: number | null;
  note: string;
  created_at: Date;
  updated_at: Date;
};

/** A `reconciliation_runs` row as `db/sql.ts` reads it. */
export type ReconciliationRunRow = {
  id: string;
  supplier_id: number;
  task_run_id: string | null;
  status: ReconciliationRunStatus;
  started_at: Date;
  finished_at: Date | null;
  hosts_compared: boolean;
  bills_compared: boolean;
  /** What was not compared, and why (Chinese); empty when everything was. */
  note: string;
  upstream_hosts: number;
  upstream_bills: number;
  local_services: number;
  findings_seen: number;
  findings_opened: number;
  findings_resolved: number;
  error: string | null;
};
