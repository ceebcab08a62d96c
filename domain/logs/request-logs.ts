import { createBatchWriter, type BatchWriter } from '../../lib/batch-writer.js';
import { logRowsDropped } from '../../lib/metrics.js';
import { pgSafeText } from '../../lib/pg-safe.js';
import { sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { likePattern } from '../catalogue/sorting.js';
import { dayRangeConditions } from './admin-audit.js';
import { listLogRows } from './log-list.js';

/**
 * The API request log (`api_request_logs`): method, route template (never the concrete path: a
 * one-time token may be a path segment), status, envelope code, duration, who (user or admin),
 * address and request id. Never a body, a query string or a header.
 */
export type RequestLogRecord = {
  method: string;
  route: string;
  status: number;
  code: number | null;
  durationMs: number;
  userId: number | null;
  adminId: number | null;
  ip: string;
  requestId: string;
  at: Date;
};

/** One INSERT per batch over arrays (ten parameters whatever the batch size); text NUL-free (lib/pg-safe.ts). */
export async function insertRequestLogs(deps: Pick<DomainDeps, 'db'>, rows: RequestLogRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await sqlRows(
    deps,
    `INSERT INTO api_request_logs (method, route, status, code, duration_ms, user_id, admin_id, ip, request_id, created_at)
     SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::smallint[], $4::int[], $5::int[], $6::int[], $7::int[], $8::varchar[], $9::varchar[], $10::timestamptz[])`,
    [
      rows.map((r) => pgSafeText(r.method).slice(0, 8)),
      rows.map((r) => pgSafeText(r.route).slice(0, 255)),
      rows.map((r) => r.status),
      rows.map((r) => r.code),
      rows.map((r) => Math.min(Math.max(Math.round(r.durationMs), 0), 2_147_483_647)),
      rows.map((r) => r.userId),
      rows.map((r) => r.adminId),
      rows.map((r) => pgSafeText(r.ip).slice(0, 64)),
      rows.map((r) => pgSafeText(r.requestId).slice(0, 64)),
      rows.map((r) => r.at),
    ],
  );
}

/** Batched once a second (or per 500 rows); what cannot be written is dropped and counted, never answered. */
export function createRequestLogWriter(deps: Pick<DomainDeps, 'db' | 'logger'>): BatchWriter<RequestLogRecord> {
  return createBatchWriter({
    write: (rows) => insertRequestLogs(deps, rows),
    onError: (err, rows) => {
      logRowsDropped.inc({ log: 'request' }, rows);
      deps.logger.warn({ err, rows }, 'request log rows not written');
    },
    intervalMs: 1000,
    maxBatch: 500,
  });
}

export type RequestLogQuery = {
  page: number;
  page_size: number;
  method?: string | undefined;
  route?: string | undefined;
  status?: number | undefined;
  code?: number | undefined;
  user_id?: number | undefined;
  admin_id?: number | undefined;
  request_id?: string | undefined;
  ip?: string | undefined;
  keyword?: string | undefined;
  min_duration_ms?: number | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

export type RequestLogRow = {
  id: number;
  method: string;
  route: string;
  status: number;
  code: number | null;
  duration_ms: number;
  user_id: number | null;
  admin_id: number | null;
  ip: string;
  request_id: string;
  created_at: Date;
};

/**
 * Newest first (`created_at`, then `id`: the order of the partitions and of every index of the
 * table), each filter on an index of its own, the keyword on the route's trigram index; a date
 * range reads only the months it covers. Bounded as every log list (`listLogRows`).
 */
export async function listRequestLogs(deps: DomainDeps, query: RequestLogQuery): Promise<{ rows: RequestLogRow[]; total: number }> {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['method', 'route', 'status', 'code', 'user_id', 'admin_id', 'request_id', 'ip'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${key} = ${param(query[key])}`);
  }
  if (query.keyword !== undefined) conditions.push(`route ILIKE ${param(likePattern(query.keyword))}`);
  if (query.min_duration_ms !== undefined) conditions.push(`duration_ms >= ${param(query.min_duration_ms)}`);
  conditions.push(...dayRangeConditions('created_at', query, param));
  return listLogRows<RequestLogRow>(deps, {
    select: 'l.id::int AS id, l.method, l.route, l.status, l.code, l.duration_ms, l.user_id, l.admin_id, l.ip, l.request_id, l.created_at',
    from: 'api_request_logs l',
    conditions,
    values,
    order: 'l.created_at DESC, l.id DESC',
    paging: query,
  });
}
