import { validationError } from '../../lib/errors.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { AWAITING_FUNDS_COUNT_SQL } from '../economics/funds.js';
import { listSupplierHealth, SUPPLIERS_DOWN_COUNT_SQL } from '../suppliers/health.js';
import type { SupplierBreakerState } from '../../db/models/supplier.js';
import { ACTIVE_SERVICES_SQL, OPEN_TICKETS_SQL } from './kept.js';

/**
 * The admin dashboard. Each figure set is one query (docs/operations.md "Dashboard"): money
 * received and refunded (from the kept daily totals, `MONEY_OF_DAYS`), new users, new
 * services, for a range of Asia/Shanghai days; and the state of now: active services (kept,
 * domain/dashboard/kept.ts), provisionings stuck or awaiting an admin, renewals due, schedule health. Figures of areas that
 * may not exist on every install (tickets, withdrawals) join through `DASHBOARD_EXTRAS`.
 */
export const STUCK_MINUTES = 30;
export const MAX_RANGE_DAYS = 366;

export type RangeFigures = {
  from: string;
  to: string;
  /** Paid invoices of the kinds that count as `sales` (by paid_at), refunded later or not. */
  revenue: string;
  /** Paid invoices of the kinds that count as `recharge`. */
  recharge: string;
  /** Refunds that succeeded (by refunded_at). */
  refunds: string;
  /** revenue − refunds. */
  net_revenue: string;
  paid_invoices: number;
  new_users: number;
  new_services: number;
};

export type StateFigures = {
  active_services: number;
  provisioning_stuck: number;
  provisioning_awaiting_admin: number;
  renewals_due: number;
  renewals_due_days: number;
  schedules: { runs_24h: number; failed_24h: number; overdue_running: number; failing_tasks: number };
  extras: Record<string, number | null>;
  /** Supplier health (docs/fulfilment.md "Supplier health"): each supplier's breaker and window. */
  supplier_health: DashboardSupplierHealth[];
};

export type DashboardSupplierHealth = {
  supplier_id: number;
  code: string;
  name: string;
  state: SupplierBreakerState;
  calls: number;
  failure_percent: number | null;
  latency_p95_ms: number | null;
};

/**
 * One more figure of the state of now, from an area that owns it (open tickets, pending
 * withdrawals): a single count query. Its table may be missing on an install without that
 * area: the figure is then null.
 */
export type DashboardExtra = { key: string; label: string; table: string; sql: string };

export const DASHBOARD_EXTRAS: DashboardExtra[] = [
  { key: 'open_tickets', label: '待处理工单', table: 'ticket_status_deltas', sql: OPEN_TICKETS_SQL },
  { key: 'pending_withdrawals', label: '待审核提现', table: 'referral_withdrawals', sql: "SELECT count(*)::int AS n FROM referral_withdrawals WHERE status = 'pending'" },
  { key: 'open_economics_alerts', label: '未读经营提醒', table: 'admin_alerts', sql: 'SELECT count(*)::int AS n FROM admin_alerts WHERE acknowledged_at IS NULL' },
  { key: 'upstream_funds_waiting', label: '等待上游余额的开通与订单', table: 'supplier_balances', sql: AWAITING_FUNDS_COUNT_SQL },
  {
    key: 'suppliers_funds_short',
    label: '上游余额不足的供应商',
    table: 'admin_alerts',
    // One open shortage per supplier (admin_alerts_open_funds_short, migration 0036).
    sql: "SELECT count(*)::int AS n FROM admin_alerts WHERE kind = 'funds_short' AND detail ? 'supplier_id' AND (detail->>'ended_at') IS NULL",
  },
  // Supplier health (docs/fulfilment.md "Supplier health"): breakers open or half-open.
  { key: 'suppliers_down', label: '不可用（熔断中）的供应商', table: 'supplier_breakers', sql: SUPPLIERS_DOWN_COUNT_SQL },
  // The backups (docs/production.md "Back up"): null when no backup was taken / no segment archived yet.
  { key: 'backup_age_seconds', label: '最近一次基础备份距今（秒）', table: 'database_backups', sql: 'SELECT floor(extract(epoch FROM now() - max(finished_at)))::int AS n FROM database_backups' },
  { key: 'wal_archived_age_seconds', label: '最近一次 WAL 归档成功距今（秒）', table: 'pg_stat_archiver', sql: 'SELECT floor(extract(epoch FROM now() - last_archived_time))::int AS n FROM pg_stat_archiver' },
  {
    key: 'wal_archive_failing',
    label: 'WAL 归档正在失败（1 是，0 否）',
    table: 'pg_stat_archiver',
    sql: 'SELECT (last_failed_time IS NOT NULL AND (last_archived_time IS NULL OR last_failed_time > last_archived_time))::int AS n FROM pg_stat_archiver',
  },
];

/** What the money figures sum (`countsAs` of the invoice kinds), passed as the arrays `$3` and `$4`. */
const TYPES = { sales: invoiceTypesWhere('countsAs', 'sales'), recharge: invoiceTypesWhere('countsAs', 'recharge') };

/**
 * The money of the days `$1..$2` (Asia/Shanghai) from their kept totals (`daily_money_deltas`,
 * migration 0044; domain/dashboard/kept.ts): paid invoices (status paid, partially refunded or
 * refunded) by the day of `paid_at` and type, succeeded refunds by the day of `refunded_at`. A
 * few rows a day, whatever the invoices of the day.
 */
const MONEY_OF_DAYS = `money AS (
  SELECT COALESCE(sum(amount) FILTER (WHERE source = 'invoice' AND type = ANY($3::text[])), 0) AS revenue,
         COALESCE(sum(amount) FILTER (WHERE source = 'invoice' AND type = ANY($4::text[])), 0) AS recharge,
         COALESCE(sum(n) FILTER (WHERE source = 'invoice' AND (type = ANY($3::text[]) OR type = ANY($4::text[]))), 0)::int AS paid_invoices,
         COALESCE(sum(amount) FILTER (WHERE source = 'refund'), 0) AS refunds
    FROM daily_money_deltas WHERE day >= CAST($1 AS date) AND day <= CAST($2 AS date))`;

/** Days `from..to` inclusive, valid and at most MAX_RANGE_DAYS long; 42200 otherwise. */
export function checkRange(from: string, to: string): void {
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days < 1) throw validationError({ date_to: ['结束日期不能早于开始日期'] }, '结束日期不能早于开始日期');
  if (days > MAX_RANGE_DAYS) throw validationError({ date_to: [`日期范围最多 ${MAX_RANGE_DAYS} 天`] }, `日期范围最多 ${MAX_RANGE_DAYS} 天`);
}

/** The range's instants, from the days `$1..$2` (Asia/Shanghai). */
const BOUNDS = `bounds AS (
  SELECT (CAST($1 AS date)::timestamp AT TIME ZONE 'Asia/Shanghai') AS lo,
         ((CAST($2 AS date) + 1)::timestamp AT TIME ZONE 'Asia/Shanghai') AS hi)`;

export async function rangeFigures(deps: DomainDeps, from: string, to: string): Promise<RangeFigures> {
  checkRange(from, to);
  const row = await sqlOne<Omit<RangeFigures, 'from' | 'to' | 'net_revenue'> & { net_revenue: string }>(
    deps,
    `WITH ${BOUNDS}, ${MONEY_OF_DAYS}
     SELECT money.revenue::numeric(14,2)::text AS revenue, money.recharge::numeric(14,2)::text AS recharge,
            money.refunds::numeric(14,2)::text AS refunds, (money.revenue - money.refunds)::numeric(14,2)::text AS net_revenue,
            money.paid_invoices,
            (SELECT count(*)::int FROM users, bounds WHERE created_at >= bounds.lo AND created_at < bounds.hi) AS new_users,
            (SELECT count(*)::int FROM services, bounds WHERE created_at >= bounds.lo AND created_at < bounds.hi) AS new_services
       FROM money`,
    [from, to, TYPES.sales, TYPES.recharge],
  );
  if (!row) throw new Error('dashboard figures not computed');
  return { from, to, ...row };
}

/**
 * Unfinished provisionings, not awaiting an admin or upstream funds, without progress for `$1`
 * minutes: counted from `services_unfinished_since_idx` alone (migration 0044), whose predicate
 * is this one's status and stage conditions.
 */
export const STUCK_COUNT_SQL = `SELECT count(*)::int FROM services WHERE status IN ('pending', 'provisioning', 'failed')
   AND provisioning_stage IS DISTINCT FROM 'awaiting_admin' AND provisioning_stage IS DISTINCT FROM 'awaiting_upstream_funds'
   AND COALESCE(stage_changed_at, created_at) < now() - make_interval(mins => $1)`;

/**
 * The tasks whose last settled run of the last 7 days failed. Each task key (a few dozen) is found
 * by a skip along `task_runs_task_idx`, and its last settled run is read newest first on the same
 * index: the read follows the tasks, not the runs of the week (a DISTINCT ON over the week's runs
 * sorted them all). Ties on `started_at` go to the higher id, as before.
 */
const FAILING_TASKS_SQL = `WITH RECURSIVE keys AS (
    (SELECT task_key FROM task_runs ORDER BY task_key LIMIT 1)
    UNION ALL
    SELECT (SELECT t.task_key FROM task_runs t WHERE t.task_key > keys.task_key ORDER BY t.task_key LIMIT 1) FROM keys WHERE keys.task_key IS NOT NULL)
  SELECT count(*)::int FROM keys CROSS JOIN LATERAL (
    SELECT r.status FROM task_runs r WHERE r.task_key = keys.task_key AND r.started_at > now() - interval '7 days' AND r.status IN ('succeeded', 'failed')
     ORDER BY r.started_at DESC, r.id DESC LIMIT 1) latest
  WHERE latest.status = 'failed'`;

export async function stateFigures(deps: DomainDeps): Promise<StateFigures> {
  const renewalDays = deps.config.lifecycle.renewalLeadDays;
  const row = await sqlOne<Omit<StateFigures, 'renewals_due_days' | 'schedules' | 'extras' | 'supplier_health'> & {
    runs_24h: number;
    failed_24h: number;
    overdue_running: number;
    failing_tasks: number;
  }>(
    deps,
    `SELECT
       (${ACTIVE_SERVICES_SQL}) AS active_services,
       (${STUCK_COUNT_SQL}) AS provisioning_stuck,
       (SELECT count(*)::int FROM services WHERE provisioning_stage = 'awaiting_admin' AND status IN ('pending', 'provisioning', 'failed')) AS provisioning_awaiting_admin,
       (SELECT count(*)::int FROM services WHERE status = 'active' AND next_due_at IS NOT NULL AND next_due_at < now() + make_interval(days => $2)) AS renewals_due,
       (SELECT count(*)::int FROM task_runs WHERE started_at > now() - interval '24 hours') AS runs_24h,
       (SELECT count(*)::int FROM task_runs WHERE started_at > now() - interval '24 hours' AND status = 'failed') AS failed_24h,
       (SELECT count(*)::int FROM task_runs WHERE status = 'running' AND deadline_at IS NOT NULL AND deadline_at < now()) AS overdue_running,
       (${FAILING_TASKS_SQL}) AS failing_tasks`,
    [STUCK_MINUTES, renewalDays],
  );
  if (!row) throw new Error('dashboard figures not computed');
  const extras: Record<string, number | null> = {};
  for (const extra of DASHBOARD_EXTRAS) {
    const exists = await sqlOne<{ found: string | null }>(deps, 'SELECT to_regclass($1)::text AS found', [extra.table]);
    if (!exists?.found) {
      extras[extra.key] = null;
      continue;
    }
    const counted = await sqlOne<{ n: number }>(deps, extra.sql, []);
    // A count is never null; an age is null when there is nothing to measure from.
    extras[extra.key] = counted ? counted.n : 0;
  }
  return {
    active_services: row.active_services,
    provisioning_stuck: row.provisioning_stuck,
    provisioning_awaiting_admin: row.provisioning_awaiting_admin,
    renewals_due: row.renewals_due,
    renewals_due_days: renewalDays,
    schedules: { runs_24h: row.runs_24h, failed_24h: row.failed_24h, overdue_running: row.overdue_running, failing_tasks: row.failing_tasks },
    extras,
    supplier_health: (await listSupplierHealth(deps)).map((h) => ({
      supplier_id: h.supplier_id,
      code: h.code,
      name: h.name,
      state: h.state,
      calls: h.calls,
      failure_percent: h.failure_percent,
      latency_p95_ms: h.latency_p95_ms,
    })),
  };
}

export type RevenuePoint = { date: string; revenue: string; recharge: string; refunds: string };

/** One point per day of the range (days without money are zeros), for a chart. One query. */
export async function revenueSeries(deps: DomainDeps, from: string, to: string): Promise<RevenuePoint[]> {
  checkRange(from, to);
  return sqlRows<RevenuePoint>(
    deps,
    `WITH days AS (SELECT generate_series(CAST($1 AS date), CAST($2 AS date), interval '1 day')::date AS day),
     money AS (
       SELECT day, sum(amount) FILTER (WHERE source = 'invoice' AND type = ANY($3::text[])) AS revenue,
              sum(amount) FILTER (WHERE source = 'invoice' AND type = ANY($4::text[])) AS recharge,
              sum(amount) FILTER (WHERE source = 'refund') AS refunds
         FROM daily_money_deltas WHERE day >= CAST($1 AS date) AND day <= CAST($2 AS date) GROUP BY day)
     SELECT to_char(days.day, 'YYYY-MM-DD') AS date,
            COALESCE(money.revenue, 0)::numeric(14,2)::text AS revenue,
            COALESCE(money.recharge, 0)::numeric(14,2)::text AS recharge,
            COALESCE(money.refunds, 0)::numeric(14,2)::text AS refunds
       FROM days LEFT JOIN money ON money.day = days.day ORDER BY days.day`,
    [from, to, TYPES.sales, TYPES.recharge],
  );
}

/** Today and the first day of this month, in Asia/Shanghai. */
export function shanghaiToday(now = new Date()): { today: string; monthStart: string } {
  const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  return { today, monthStart: `${today.slice(0, 8)}01` };
}
