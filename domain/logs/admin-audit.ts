import { QueryTypes } from 'sequelize';
import { createBatchWriter, type BatchWriter } from '../../lib/batch-writer.js';
import { notFound } from '../../lib/errors.js';
import { logRowsDropped } from '../../lib/metrics.js';
import type { DomainDeps } from '../deps.js';

/**
 * The admin audit (`admin_audit_logs`, append-only by trigger): one `request` row per admin
 * write, written by the route middleware for every admin route that is not a GET (installed
 * once, in `defineRoute`), and the `catalogue` rows the catalogue writes in its own transactions
 * (`domain/catalogue/audit.ts`, through the `catalogue_audit_logs` view). Values are redacted
 * before they get here (`lib/redact.ts`).
 */
export const AUDIT_SOURCES = ['request', 'catalogue'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

export type AuditRequestRecord = {
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

const COLUMNS = ['source', 'admin_id', 'admin_name', 'method', 'route', 'status', 'code', 'target_type', 'target_id', 'action', 'before', 'after', 'request', 'request_id', 'ip', 'user_agent', 'created_at'];

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** One INSERT for a batch of request rows (17 parameters a row, 500 rows at most). */
export async function insertAuditRecords(deps: Pick<DomainDeps, 'db'>, rows: AuditRequestRecord[]): Promise<void> {
  if (rows.length === 0) return;
  const bind: unknown[] = [];
  const values = rows.map((r) => {
    const row = [
      'request', r.adminId, r.adminName.slice(0, 64), r.method.slice(0, 8), r.route.slice(0, 255), r.status, r.code,
      r.targetType?.slice(0, 32) ?? null, r.targetId?.slice(0, 64) ?? null, r.action.slice(0, 32),
      json(r.before), json(r.after), json(r.request), r.requestId.slice(0, 64), r.ip.slice(0, 64), r.userAgent.slice(0, 255), r.at,
    ];
    const marks = row.map((value) => {
      bind.push(value);
      return `$${bind.length}`;
    });
    return `(${marks.join(', ')})`;
  });
  await deps.db.sequelize.query(`INSERT INTO admin_audit_logs (${COLUMNS.join(', ')}) VALUES ${values.join(', ')}`, { bind });
}

/**
 * The API process's audit writer: off the request path, a batch at most every 200 ms. A crash
 * loses at most what is queued (well under a second of admin writes); a failed insert is
 * logged and counted (`log_rows_dropped_total{log="audit"}`), never answered to the admin.
 */
export function createAuditWriter(deps: Pick<DomainDeps, 'db' | 'logger'>): BatchWriter<AuditRequestRecord> {
  return createBatchWriter({
    write: (rows) => insertAuditRecords(deps, rows),
    onError: (err, rows) => {
      logRowsDropped.inc({ log: 'audit' }, rows);
      deps.logger.error({ err, rows }, 'admin audit rows not written');
    },
    intervalMs: 200,
    maxBatch: 500,
  });
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

/** Day bounds in Asia/Shanghai: `date_from` inclusive, `date_to` inclusive (the whole day). */
export function dayRangeConditions(column: string, query: { date_from?: string | undefined; date_to?: string | undefined }, replacements: Record<string, unknown>): string[] {
  const conditions: string[] = [];
  if (query.date_from) {
    conditions.push(`${column} >= (CAST(:date_from AS date)::timestamp AT TIME ZONE 'Asia/Shanghai')`);
    replacements.date_from = query.date_from;
  }
  if (query.date_to) {
    conditions.push(`${column} < ((CAST(:date_to AS date) + 1)::timestamp AT TIME ZONE 'Asia/Shanghai')`);
    replacements.date_to = query.date_to;
  }
  return conditions;
}

export async function listAuditLogs(deps: DomainDeps, query: AuditListQuery): Promise<{ rows: AuditSummaryRow[]; total: number }> {
  const replacements: Record<string, unknown> = { limit: query.page_size, offset: (query.page - 1) * query.page_size };
  const conditions: string[] = [];
  for (const key of ['source', 'admin_id', 'method', 'route', 'target_type', 'target_id', 'request_id'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${key} = :${key}`);
    replacements[key] = query[key];
  }
  if (query.failed !== undefined) conditions.push(query.failed ? `(status >= 400)` : `(status IS NULL OR status < 400)`);
  conditions.push(...dayRangeConditions('created_at', query, replacements));
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const [rows, counted] = await Promise.all([
    deps.db.sequelize.query<AuditSummaryRow>(`SELECT ${SUMMARY} FROM admin_audit_logs ${where} ORDER BY id DESC LIMIT :limit OFFSET :offset`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
    deps.db.sequelize.query<{ total: number }>(`SELECT count(*)::int AS total FROM admin_audit_logs ${where}`, { replacements, type: QueryTypes.SELECT }),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getAuditLog(deps: DomainDeps, id: number): Promise<AuditDetailRow> {
  const [row] = await deps.db.sequelize.query<AuditDetailRow>(
    `SELECT ${SUMMARY}, before, after, request, changes, user_agent FROM admin_audit_logs WHERE id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (!row) throw notFound('审计记录不存在');
  return row;
}
