import { AppError, ErrorCode, notFound } from '../../../lib/errors.js';
import { offerAuditBefore } from '../../../lib/request-context.js';
import { sqlOne, sqlParams, sqlRows } from '../../../db/sql.js';
import {
  RECONCILIATION_FINDING_KINDS,
  RECONCILIATION_FINDING_STATES,
  type ReconciliationFindingKind,
  type ReconciliationFindingRow,
  type ReconciliationFindingState,
  type ReconciliationRunRow,
  type ReconciliationRunStatus,
} from '../../../db/models/reconciliation.js';
import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';

export type FindingFilters = {
  supplier_id?: number | undefined;
  kind?: ReconciliationFindingKind | undefined;
  state?: ReconciliationFindingState | undefined;
  service_id?: number | undefined;
};

export type FindingWithSupplier = ReconciliationFindingRow & { supplier_code: string; supplier_name: string };

function findingWhere(filters: FindingFilters) {
  const { values, param } = sqlParams();
  const where: string[] = [];
  if (filters.supplier_id !== undefined) where.push(`f.supplier_id = ${param(filters.supplier_id)}`);
  if (filters.kind !== undefined) where.push(`f.kind = ${param(filters.kind)}`);
  if (filters.state !== undefined) where.push(`f.state = ${param(filters.state)}`);
  if (filters.service_id !== undefined) where.push(`f.service_id = ${param(filters.service_id)}`);
  return { values, param, sql: where.length ? `WHERE ${where.join(' AND ')}` : '' };
}

const FINDING_COLUMNS = `f.*, p.code AS supplier_code, p.name AS supplier_name`;

/** Findings, newest seen first, with their supplier's code and name. */
export async function listFindings(deps: DomainDeps, query: FindingFilters & { page: number; page_size: number }) {
  const where = findingWhere(query);
  const [count] = await sqlRows<{ total: string }>(deps, `SELECT count(*) AS total FROM reconciliation_findings f ${where.sql}`, [...where.values]);
  const limit = where.param(query.page_size);
  const offset = where.param((query.page - 1) * query.page_size);
  const rows = await sqlRows<FindingWithSupplier>(
    deps,
    `SELECT ${FINDING_COLUMNS} FROM reconciliation_findings f JOIN suppliers p ON p.id = f.supplier_id
      ${where.sql} ORDER BY f.last_seen_at DESC, f.id DESC LIMIT ${limit} OFFSET ${offset}`,
    where.values,
  );
  return { rows, total: Number(count?.total ?? 0) };
}

export type FindingSummary = {
  total: number;
  by_state: Record<ReconciliationFindingState, number>;
  by_kind: Array<{ kind: ReconciliationFindingKind; total: number; open_amount: string } & Record<ReconciliationFindingState, number>>;
};

/** Counts by kind and state under the list's filters; `open_amount` sums the amounts of findings not yet resolved. */
export async function summariseFindings(deps: DomainDeps, filters: FindingFilters): Promise<FindingSummary> {
  const where = findingWhere(filters);
  const rows = await sqlRows<{ kind: ReconciliationFindingKind; state: ReconciliationFindingState; count: string; amount: string | null }>(
    deps,
    `SELECT f.kind, f.state, count(*) AS count, sum(f.amount) AS amount FROM reconciliation_findings f ${where.sql} GROUP BY f.kind, f.state`,
    where.values,
  );
  const zero = () => Object.fromEntries(RECONCILIATION_FINDING_STATES.map((s) => [s, 0])) as Record<ReconciliationFindingState, number>;
  const byState = zero();
  const byKind = RECONCILIATION_FINDING_KINDS.map((kind) => ({ kind, total: 0, open_amount: money(0), ...zero() }));
  for (const row of rows) {
    const count = Number(row.count);
    byState[row.state] += count;
    const line = byKind.find((k) => k.kind === row.kind);
    if (!line) continue;
    line[row.state] += count;
    line.total += count;
    if (row.state !== 'resolved' && row.amount !== null) line.open_amount = line.open_amount.plus(row.amount);
  }
  return {
    total: RECONCILIATION_FINDING_STATES.reduce((sum, s) => sum + byState[s], 0),
    by_state: byState,
    by_kind: byKind.map((k) => ({ ...k, open_amount: formatMoney(k.open_amount) })),
  };
}

async function findingById(deps: DomainDeps, id: number): Promise<FindingWithSupplier | null> {
  return sqlOne<FindingWithSupplier>(deps, `SELECT ${FINDING_COLUMNS} FROM reconciliation_findings f JOIN suppliers p ON p.id = f.supplier_id WHERE f.id = $1`, [id]);
}

const ACTIONS = {
  acknowledge: {
    from: ['open'],
    set: `state = 'acknowledged', acknowledged_at = now(), acknowledged_by = $2`,
    refused: '只有待处理的对账差异可以确认',
  },
  resolve: {
    from: ['open', 'acknowledged'],
    set: `state = 'resolved', resolved_at = now(), resolved_by_type = 'admin', resolved_by_id = $2`,
    refused: '该对账差异已解决',
  },
} as const;

/**
 * An admin's acknowledge (open → acknowledged) or resolve (open or acknowledged → resolved): one
 * guarded update, so of two racing admins one wins and the other gets 40990. Only the finding's
 * state, who and when, and the note change; nothing upstream or on the service. The admin audit
 * records the call (with the finding's state before).
 */
export async function changeFindingState(deps: DomainDeps, id: number, action: keyof typeof ACTIONS, adminId: number, note: string | undefined): Promise<FindingWithSupplier> {
  const rule = ACTIONS[action];
  const before = await findingById(deps, id);
  if (!before) throw notFound('对账差异不存在');
  offerAuditBefore({ id: Number(before.id), kind: before.kind, state: before.state, note: before.note });
  const updated = await sqlOne<{ id: string }>(
    deps,
    `UPDATE reconciliation_findings SET ${rule.set}, note = COALESCE($3, note), updated_at = now()
      WHERE id = $1 AND state = ANY($4::text[]) RETURNING id`,
    [id, adminId, note ?? null, rule.from],
  );
  if (!updated) throw new AppError(ErrorCode.RECONCILIATION_FINDING_STATE, rule.refused, { state: before.state });
  const after = await findingById(deps, id);
  if (!after) throw notFound('对账差异不存在');
  return after;
}

export type RunFilters = { supplier_id?: number | undefined; status?: ReconciliationRunStatus | undefined };

export type RunWithSupplier = ReconciliationRunRow & { supplier_code: string; supplier_name: string };

/** Reconciliation runs, newest first. */
export async function listRuns(deps: DomainDeps, query: RunFilters & { page: number; page_size: number }) {
  const { values, param } = sqlParams();
  const where: string[] = [];
  if (query.supplier_id !== undefined) where.push(`r.supplier_id = ${param(query.supplier_id)}`);
  if (query.status !== undefined) where.push(`r.status = ${param(query.status)}`);
  const sql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [count] = await sqlRows<{ total: string }>(deps, `SELECT count(*) AS total FROM reconciliation_runs r ${sql}`, [...values]);
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  const rows = await sqlRows<RunWithSupplier>(
    deps,
    `SELECT r.*, p.code AS supplier_code, p.name AS supplier_name FROM reconciliation_runs r JOIN suppliers p ON p.id = r.supplier_id
      ${sql} ORDER BY r.id DESC LIMIT ${limit} OFFSET ${offset}`,
    values,
  );
  return { rows, total: Number(count?.total ?? 0) };
}
