import { sqlOne, sqlParams, sqlRows, type Tx } from '../../db/sql.js';
import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';

/**
 * What an admin is told about money and suppliers (issue #29 "admins get one notice per change"):
 * one row of `admin_alerts` per change, raised in the transaction of what it reports, with a
 * UNIQUE key so a run that finds the same thing again raises nothing. The spec has no admin
 * notice channel (client notices go to users by mail and SMS); admins read these in the admin
 * list, the dashboard's open count and the `admin_alerts_open` gauge (counted from the rows at
 * scrape time, `countOpenAlerts`). The one store: a funds shortage or runway shortfall is an alert
 * too, its episode in `detail` (`domain/economics/funds.ts`).
 */
export const ALERT_KINDS = ['price_drift', 'funds_short', 'runway_short', 'reconciliation', 'backup_archive', 'supplier_down', 'supplier_up'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const ALERT_KIND_LABELS: Record<AlertKind, string> = {
  price_drift: '上游价格变化',
  funds_short: '上游余额不足',
  runway_short: '上游余额不够续费',
  reconciliation: '与上游对账差异',
  backup_archive: '数据库 WAL 归档失败',
  supplier_down: '供应商不可用（熔断）',
  supplier_up: '供应商已恢复',
};
export const ALERT_STATES = ['open', 'acknowledged'] as const;
export type AlertState = (typeof ALERT_STATES)[number];
export type AlertSeverity = 'info' | 'warning' | 'critical';

export type AdminAlertInput = {
  kind: AlertKind;
  /** One alert per key, ever: name the change (`price-drift:<finding id>`), not the run. */
  key: string;
  severity?: AlertSeverity;
  title: string;
  message: string;
  /** Ids an admin follows (product, supplier, service, finding…); never secrets. */
  subject?: Record<string, string | number | null>;
  /** What the change was (a funds episode: supplier, balance, needed, started and ended); never secrets. */
  detail?: Record<string, string | number | null>;
};

export type AdminAlert = {
  id: string;
  kind: AlertKind;
  alert_key: string;
  severity: AlertSeverity;
  title: string;
  message: string;
  subject: Record<string, unknown>;
  detail: Record<string, unknown>;
  acknowledged_by: number | null;
  acknowledged_at: Date | null;
  created_at: Date;
};

/**
 * Raises an alert once: in `tx` (the transaction that records the change) where there is one.
 * Answers whether this call raised it (false: the key was raised before, or another UNIQUE index
 * of the table refused it, such as the one open funds shortage per supplier).
 */
export async function raiseAdminAlert(deps: DomainDeps, alert: AdminAlertInput, tx?: Tx): Promise<boolean> {
  const row = await sqlOne<{ id: string }>(
    deps,
    `INSERT INTO admin_alerts (kind, alert_key, severity, title, message, subject, detail)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb) ON CONFLICT DO NOTHING RETURNING id::text AS id`,
    [alert.kind, alert.key.slice(0, 191), alert.severity ?? 'warning', alert.title.slice(0, 191), alert.message, JSON.stringify(alert.subject ?? {}), JSON.stringify(alert.detail ?? {})],
    tx,
  );
  if (!row) return false;
  deps.logger.warn({ alert_id: row.id, kind: alert.kind, subject: alert.subject ?? {} }, `admin alert: ${alert.title}`);
  return true;
}

export type AlertFilters = { kind?: AlertKind | undefined; state?: AlertState | undefined };

function where(filters: AlertFilters, param: (value: unknown) => string): string {
  const parts = ['TRUE'];
  if (filters.kind) parts.push(`kind = ${param(filters.kind)}`);
  if (filters.state === 'open') parts.push('acknowledged_at IS NULL');
  if (filters.state === 'acknowledged') parts.push('acknowledged_at IS NOT NULL');
  return parts.join(' AND ');
}

const COLUMNS = 'id::text AS id, kind, alert_key, severity, title, message, subject, detail, acknowledged_by, acknowledged_at, created_at';

/** The admin list, newest first. */
export async function listAdminAlerts(deps: DomainDeps, query: AlertFilters & { page: number; page_size: number }): Promise<{ rows: AdminAlert[]; total: number }> {
  const { values, param } = sqlParams();
  const filter = where(query, param);
  const rows = await sqlRows<AdminAlert>(
    deps,
    `SELECT ${COLUMNS} FROM admin_alerts WHERE ${filter} ORDER BY id DESC LIMIT ${param(query.page_size)} OFFSET ${param((query.page - 1) * query.page_size)}`,
    values,
  );
  const counted = sqlParams();
  const total = await sqlOne<{ total: number }>(deps, `SELECT count(*)::int AS total FROM admin_alerts WHERE ${where(query, counted.param)}`, counted.values);
  return { rows, total: total?.total ?? 0 };
}

export type AlertSummary = { total: number; open: number; open_by_kind: Record<AlertKind, number> };

/** Counts beside the list (same filters, no paging). */
export async function summariseAdminAlerts(deps: DomainDeps, filters: AlertFilters): Promise<AlertSummary> {
  const { values, param } = sqlParams();
  const rows = await sqlRows<{ kind: AlertKind; total: number; open: number }>(
    deps,
    `SELECT kind, count(*)::int AS total, count(*) FILTER (WHERE acknowledged_at IS NULL)::int AS open
       FROM admin_alerts WHERE ${where(filters, param)} GROUP BY kind`,
    values,
  );
  const open_by_kind = Object.fromEntries(ALERT_KINDS.map((k) => [k, 0])) as Record<AlertKind, number>;
  let total = 0;
  let open = 0;
  for (const r of rows) {
    total += r.total;
    open += r.open;
    if (r.kind in open_by_kind) open_by_kind[r.kind] = r.open;
  }
  return { total, open, open_by_kind };
}

/** An admin has read it: a guarded update; acknowledging again answers the row as it is. */
export async function acknowledgeAdminAlert(deps: DomainDeps, id: number, operator: Actor): Promise<AdminAlert> {
  await sqlOne(deps, 'UPDATE admin_alerts SET acknowledged_by = $2, acknowledged_at = now() WHERE id = $1 AND acknowledged_at IS NULL RETURNING id', [id, operator.id]);
  const row = await sqlOne<AdminAlert>(deps, `SELECT ${COLUMNS} FROM admin_alerts WHERE id = $1`, [id]);
  if (!row) throw notFound('提醒不存在');
  return row;
}

/** The `admin_alerts_open` gauge at scrape time: unread alerts per kind, through `admin_alerts_open_idx` (bounded by what admins have not read). */
export async function countOpenAlerts(deps: DomainDeps): Promise<Array<{ kind: string; open: number }>> {
  return sqlRows<{ kind: string; open: number }>(deps, 'SELECT kind, count(*)::int AS open FROM admin_alerts WHERE acknowledged_at IS NULL GROUP BY kind', []);
}
