import { notFound } from '../../lib/errors.js';
import { logRowsDropped } from '../../lib/metrics.js';
import { pgSafe, pgSafeText } from '../../lib/pg-safe.js';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { listLogRows } from './log-list.js';

/**
 * The admin audit (`admin_audit_logs`, append-only and hash-chained by triggers: migrations
 * 0021 and 0023). Rows of three sources:
 * - `request`: one per admin write (every admin route that is not a GET, installed once in
 *   `defineRoute`). When the request changes something, the row is inserted in the first
 *   transaction that commits, before its COMMIT (`writePendingAudit`, lib/request-context.ts):
 *   the change and its row commit together or not at all. A request that committed nothing
 *   (refused, invalid, failed) gets its row after the answer, one INSERT of its own.
 * - `answer`: rows naming a call whose `request` row committed: one in each later transaction of
 *   the call that commits (status 200, code 0), and the answer (status, code, answer data,
 *   target named by the answer), written before the answer leaves; the list and the detail show
 *   the latest merged into its `request` row (same `request_id`).
 * - `catalogue`: the field-level diffs the catalogue writes in its own transactions
 *   (`domain/catalogue/audit.ts`, through the `catalogue_audit_logs` view).
 * Values are redacted before they get here (`lib/redact.ts`); what PostgreSQL refuses (NUL,
 * lone surrogates) is escaped here (`lib/pg-safe.ts`), for every row.
 */
export const AUDIT_SOURCES = ['request', 'catalogue'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

export type AuditRequestRecord = {
  /** `request` (the call) unless given; `answer` for the outcome of a call recorded in its transaction. */
  source?: 'request' | 'answer';
  adminId: number;
  adminName: string;
  method: string;
  route: string;
  status: number;
  code: number | null;
  targetType: string | null;
  targetId: string | null;
  action: string;
  before: unknown;
  after: unknown;
  request: unknown;
  requestId: string;
  ip: string;
  userAgent: string;
  at: Date;
};

/** Runs one statement (on a transaction's connection, or pooled). */
export type AuditQuery = (sql: string, bind: unknown[]) => Promise<unknown>;

const INSERT_AUDIT = `INSERT INTO admin_audit_logs (source, admin_id, admin_name, method, route, status, code, target_type, target_id, action, before, after, request, request_id, ip, user_agent, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(pgSafe(value)));
const text = (value: string, max: number) => pgSafeText(value).slice(0, max);
const textOrNull = (value: string | null, max: number) => (value === null ? null : text(value, max));

/** The parameters of one audit row: bounded, and made acceptable to PostgreSQL whatever was sent. */
export function auditRowParams(r: AuditRequestRecord): unknown[] {
  return [
    r.source ?? 'request', r.adminId, text(r.adminName, 64), text(r.method, 8), text(r.route, 255), r.status, r.code,
    textOrNull(r.targetType, 32), textOrNull(r.targetId, 64), text(r.action, 32),
    json(r.before), json(r.after), json(r.request), text(r.requestId, 64), text(r.ip, 64), text(r.userAgent, 255), r.at,
  ];
}

/** One audit row, through `query` (the committing transaction's connection, or the pool). */
export async function insertAuditRecord(query: AuditQuery, record: AuditRequestRecord): Promise<void> {
  await query(INSERT_AUDIT, auditRowParams(record));
}

/** Rows one INSERT each (seeders, scripts): a row refused cannot take another with it. */
export async function insertAuditRecords(deps: Pick<DomainDeps, 'db'>, rows: AuditRequestRecord[]): Promise<void> {
  for (const row of rows) await insertAuditRecord((sql, bind) => sqlRows(deps, sql, bind), row);
}

/**
 * The API process's writer of the rows written after the answer (refused calls, and the
 * `answer` rows): one INSERT per row, started without delaying the answer, so a row PostgreSQL
 * refuses never takes another with it. A failure is logged and counted
 * (`log_rows_dropped_total{log="audit"}`); nothing a change depends on is written here.
 * `flush()` waits for the inserts under way (tests, shutdown).
 */
export type AuditWriter = {
  write(record: AuditRequestRecord): void;
  /** The same row, awaited (the answer of a committed call waits for it); never throws. */
  record(record: AuditRequestRecord): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
};

export function createAuditWriter(deps: Pick<DomainDeps, 'db' | 'logger'>): AuditWriter {
  const pending = new Set<Promise<void>>();
  const record = (row: AuditRequestRecord): Promise<void> => {
    const done = insertAuditRecord((sql, bind) => sqlRows(deps, sql, bind), row)
      .catch((err: unknown) => {
        logRowsDropped.inc({ log: 'audit' }, 1);
        deps.logger.error({ err, requestId: row.requestId, route: row.route }, 'admin audit row not written');
      })
      .finally(() => pending.delete(done));
    pending.add(done);
    return done;
  };
  const write = (row: AuditRequestRecord) => {
    void record(row);
  };
  const flush = async () => {
    while (pending.size) await Promise.all([...pending]);
  };
  return { write, record, flush, close: flush };
}

export type AuditListQuery = {
  page: number;
  page_size: number;
  source?: AuditSource | undefined;
  admin_id?: number | undefined;
  method?: string | undefined;
  route?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  request_id?: string | undefined;
  failed?: boolean | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

export type AuditSummaryRow = {
  id: number;
  source: AuditSource;
  admin_id: number | null;
  admin_name: string;
  method: string | null;
  route: string | null;
  status: number | null;
  code: number | null;
  target_type: string | null;
  target_id: string | null;
  action: string;
  request_id: string | null;
  ip: string;
  created_at: Date;
};

export type AuditDetailRow = AuditSummaryRow & { before: unknown; after: unknown; request: unknown; changes: unknown; user_agent: string };

const SUMMARY = `id::int AS id, source, admin_id, admin_name, method, route, status, code, target_type, target_id, action, request_id, ip, created_at`;

/**
 * The rows as the routes show them: `request` and `catalogue` rows, a `request` row with the
 * outcome its `answer` row recorded (status, code, answer data, the target the answer named).
 */
export const AUDIT_VIEW = `(SELECT a.id, a.source, a.admin_id, a.admin_name, a.method, a.route,
    CASE WHEN o.id IS NULL THEN a.status ELSE o.status END AS status,
    CASE WHEN o.id IS NULL THEN a.code ELSE o.code END AS code,
    COALESCE(o.target_type, a.target_type) AS target_type, COALESCE(o.target_id, a.target_id) AS target_id,
    a.action, a.request_id, a.ip, a.created_at, a.before, CASE WHEN o.id IS NULL THEN a.after ELSE o.after END AS after,
    a.request, a.changes, a.user_agent
  FROM admin_audit_logs a
  LEFT JOIN LATERAL (
    SELECT x.id, x.status, x.code, x.target_type, x.target_id, x.after FROM admin_audit_logs x
     WHERE a.source = 'request' AND x.source = 'answer' AND x.request_id = a.request_id ORDER BY x.id DESC LIMIT 1
  ) o ON true
  WHERE a.source <> 'answer') AS audit`;
const PLAIN_VIEW = `(SELECT * FROM admin_audit_logs WHERE source <> 'answer') AS audit`;

/**
 * A condition on `audit.id` (AUDIT_VIEW) that keeps every row whose merged value can pass
 * `test` (a condition on a column of admin_audit_logs): a row passing it itself, or a request row
 * whose answer row passes it. A superset of the matching rows (the merged value is the answer's
 * when there is one; the exact condition on the view still decides), read through the indexes on
 * the tested column and `request_id`, so a filter that few rows pass reads those rows, not the
 * table: a filter on the merged value walked every row, with a lookup of its answer each.
 */
function mergedCandidates(test: string): string {
  return `audit.id = ANY(ARRAY(SELECT c.id FROM admin_audit_logs c WHERE c.${test} AND c.source <> 'answer'
    UNION ALL SELECT r.id FROM admin_audit_logs x JOIN admin_audit_logs r ON r.request_id = x.request_id AND r.source = 'request'
     WHERE x.${test} AND x.source = 'answer'))`;
}

/** Day bounds in Asia/Shanghai: `date_from` inclusive, `date_to` inclusive (the whole day). */
export function dayRangeConditions(
  column: string,
  query: { date_from?: string | undefined; date_to?: string | undefined },
  param: (value: unknown) => string,
): string[] {
  const conditions: string[] = [];
  if (query.date_from) conditions.push(`${column} >= (CAST(${param(query.date_from)} AS date)::timestamp AT TIME ZONE 'Asia/Shanghai')`);
  if (query.date_to) conditions.push(`${column} < ((CAST(${param(query.date_to)} AS date) + 1)::timestamp AT TIME ZONE 'Asia/Shanghai')`);
  return conditions;
}

/** `LIMIT $n OFFSET $m` of a page: call it after the filters, and count with the values bound before it. */
export function pageParams(query: { page: number; page_size: number }, param: (value: unknown) => string): string {
  return `LIMIT ${param(query.page_size)} OFFSET ${param((query.page - 1) * query.page_size)}`;
}

export async function listAuditLogs(deps: DomainDeps, query: AuditListQuery): Promise<{ rows: AuditSummaryRow[]; total: number }> {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['source', 'admin_id', 'method', 'route', 'target_type', 'target_id', 'request_id'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${key} = ${param(query[key])}`);
  }
  if (query.failed !== undefined) conditions.push(query.failed ? `(status >= 400)` : `(status IS NULL OR status < 400)`);
  conditions.push(...dayRangeConditions('created_at', query, param));
  // The merged filters, read by index (issue #35): the rows that can match, ahead of the exact
  // condition above (which still decides).
  // By the more selective of the two: a type (a handful of values) alone when no id is given,
  // else the id (a common type such as `user` would read every row of it).
  if (query.target_id !== undefined) conditions.push(mergedCandidates(`target_id = ${param(query.target_id)}`));
  else if (query.target_type !== undefined) conditions.push(mergedCandidates(`target_type = ${param(query.target_type)}`));
  if (query.failed) conditions.push(mergedCandidates('status >= 400'));
  const mergedFilter = query.failed !== undefined || query.target_type !== undefined || query.target_id !== undefined;
  return listLogRows<AuditSummaryRow>(deps, {
    select: SUMMARY,
    from: AUDIT_VIEW,
    // The count reads the merged outcome only when a filter needs it (the join costs a lookup a row).
    countFrom: mergedFilter ? AUDIT_VIEW : PLAIN_VIEW,
    conditions,
    values,
    order: 'audit.id DESC',
    paging: query,
  });
}

export async function getAuditLog(deps: DomainDeps, id: number): Promise<AuditDetailRow> {
  const row = await sqlOne<AuditDetailRow>(deps, `SELECT ${SUMMARY}, before, after, request, changes, user_agent FROM ${AUDIT_VIEW} WHERE id = $1`, [id]);
  if (!row) throw notFound('审计记录不存在');
  return row;
}
