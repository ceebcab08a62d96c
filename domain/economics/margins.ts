import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { notFound } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import { watchEconomics } from '../../lib/metrics.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { checkRange } from '../dashboard/figures.js';
import type { DomainDeps } from '../deps.js';
import { windowCountSql } from '../../db/window-count.js';

/**
 * Margins (docs/economics.md): what the services sold, gave back and cost upstream.
 *
 * - revenue: paid invoices of the kinds fulfilled by provisioning or a service order (purchase,
 *   renewal, traffic package, upgrade: `INVOICE_KINDS`), refunded later or not. A purchase
 *   invoice of several services is shared equally (cents left over go to its first service).
 * - refunds: succeeded refunds of those invoices; a provisioning's cancellation refund belongs to
 *   its service, another refund of a purchase invoice is shared like its revenue.
 * - upstream cost: the `upstream_costs` rows.
 * - margin = revenue − refunds − upstream cost; margin % = margin / (revenue − refunds) × 100,
 *   two digits, null when revenue − refunds is 0.
 * - The cost is unknown (`cost_known: false`, cost and margin null, never 0) when an upstream
 *   bill of the lines was paid without a known amount: bought before costs were recorded, or an
 *   upstream that answered no amount. A provisioning whose pay was attempted but not yet recorded
 *   counts as unknown until it is.
 *
 * Lines are dated: revenue by the invoice's `paid_at`, refunds by `refunded_at`, costs by
 * `recorded_at` (days and months in Asia/Shanghai).
 */

const PAID = "('paid', 'partially_refunded', 'refunded')";
const TYPES = {
  purchase: invoiceTypesWhere('fulfilment', 'provisioning'),
  order: invoiceTypesWhere('fulfilment', 'service_order'),
};

/** `amount` shared among `n` rows, the first (`k` = 1) taking the cents left over: the shares add up to it. */
const share = (amount: string, n: string, k: string) => `(trunc(${amount} / ${n}, 2) + CASE WHEN ${k} = 1 THEN ${amount} - trunc(${amount} / ${n}, 2) * ${n} ELSE 0 END)`;

/** Instants `[lo, hi)` as SQL expressions: the lines dated inside them. */
type LineRange = { lo: string; hi: string };

/**
 * The money lines of the services `scope` selects (a condition on `s`, the services table):
 * `service_id, at, revenue, refunds, cost, unknown`. `p` numbers the bound values. With a
 * `range`, only the lines dated inside it, each kind read by its own date's index (issue #35:
 * the dashboard's day and month read those days, not every line of the years before).
 */
function linesCte(p: (value: unknown) => string, scope: string, range?: LineRange): string {
  const purchase = p(TYPES.purchase);
  const order = p(TYPES.order);
  const within = (column: string) => (range ? `AND ${column} >= ${range.lo} AND ${column} < ${range.hi}` : '');
  // Every service is in scope: no list of their ids to build and probe.
  const inScope = (column: string, scoped: string) => (scope === 'true' ? 'true' : `${column} IN (${scoped})`);
  return `
  purchase_shares AS (
    SELECT s.id AS service_id, i.id AS invoice_id, i.amount, i.paid_at,
           count(*) OVER (PARTITION BY i.id) AS n, row_number() OVER (PARTITION BY i.id ORDER BY s.seq, s.id) AS k
      FROM invoices i JOIN services s ON s.invoice_id = i.id
     WHERE i.type = ANY(${purchase}::text[]) AND i.status IN ${PAID} ${within('i.paid_at')}
       AND ${inScope('i.id', `SELECT s.invoice_id FROM services s WHERE ${scope}`)}),
  sales AS (
    SELECT ps.service_id, ps.invoice_id, ps.paid_at AS at, ${share('ps.amount', 'ps.n', 'ps.k')} AS revenue,
           (b.pay_attempted_at IS NOT NULL OR b.upstream_paid_at IS NOT NULL)
             AND NOT EXISTS (SELECT 1 FROM upstream_costs c WHERE c.service_id = ps.service_id AND c.invoice_id = ps.invoice_id AND c.amount IS NOT NULL) AS unknown
      FROM purchase_shares ps LEFT JOIN service_upstream_bindings b ON b.service_id = ps.service_id
    UNION ALL
    SELECT i.service_id, i.id, i.paid_at, i.amount,
           EXISTS (SELECT 1 FROM service_orders so WHERE so.invoice_id = i.id AND so.upstream_paid_at IS NOT NULL)
             AND NOT EXISTS (SELECT 1 FROM upstream_costs c WHERE c.service_id = i.service_id AND c.invoice_id = i.id AND c.amount IS NOT NULL)
      FROM invoices i JOIN services s ON s.id = i.service_id
     WHERE i.type = ANY(${order}::text[]) AND i.status IN ${PAID} ${within('i.paid_at')} AND ${scope}),
  refund_base AS (
    SELECT r.id, r.invoice_id, r.amount, r.refunded_at,
           CASE WHEN i.type = ANY(${order}::text[]) THEN i.service_id
                ELSE (SELECT s2.id FROM services s2 WHERE s2.invoice_id = r.invoice_id
                         AND s2.id::text = (regexp_match(r.trace_id, '^provision-cancel:(\\d{1,9})$'))[1]) END AS one_service
      FROM refunds r JOIN invoices i ON i.id = r.invoice_id
     WHERE r.status = 'succeeded' AND (i.type = ANY(${purchase}::text[]) OR i.type = ANY(${order}::text[])) ${within('r.refunded_at')}
       AND ${inScope('r.invoice_id', `SELECT s.invoice_id FROM services s WHERE ${scope}
                            UNION ALL SELECT i2.id FROM invoices i2 JOIN services s ON s.id = i2.service_id WHERE ${scope}`)}),
  backs AS (
    SELECT rb.one_service AS service_id, rb.refunded_at AS at, rb.amount AS refunds FROM refund_base rb WHERE rb.one_service IS NOT NULL
    UNION ALL
    SELECT x.service_id, x.at, ${share('x.amount', 'x.n', 'x.k')}
      FROM (SELECT s.id AS service_id, rb.refunded_at AS at, rb.amount,
                   count(*) OVER (PARTITION BY rb.id) AS n, row_number() OVER (PARTITION BY rb.id ORDER BY s.seq, s.id) AS k
              FROM refund_base rb JOIN services s ON s.invoice_id = rb.invoice_id WHERE rb.one_service IS NULL) x),
  all_lines AS (
    SELECT sales.service_id, sales.at, sales.revenue, 0::numeric AS refunds, 0::numeric AS cost, sales.unknown FROM sales
    UNION ALL
    SELECT backs.service_id, backs.at, 0, backs.refunds, 0, false FROM backs
    UNION ALL
    SELECT c.service_id, c.recorded_at, 0, 0, COALESCE(c.amount, 0), c.amount IS NULL
      FROM upstream_costs c JOIN services s ON s.id = c.service_id WHERE ${scope} ${within('c.recorded_at')}),
  lines AS (SELECT * FROM all_lines WHERE ${inScope('all_lines.service_id', `SELECT s.id FROM services s WHERE ${scope}`)})`;
}

/** The summed figures of a set of lines, as text (margin and margin % by the rule above). */
const FIGURES = `
  COALESCE(sum(l.revenue), 0)::numeric(14,2)::text AS revenue,
  COALESCE(sum(l.refunds), 0)::numeric(14,2)::text AS refunds,
  COALESCE(sum(l.cost), 0)::numeric(14,2)::text AS cost,
  COALESCE(bool_or(l.unknown), false) AS unknown`;

type RawFigures = { revenue: string; refunds: string; cost: string; unknown: boolean };

export type MarginFigures = {
  revenue: string;
  refunds: string;
  upstream_cost: string | null;
  margin: string | null;
  margin_percent: string | null;
  cost_known: boolean;
  currency: 'CNY';
};

function figuresOf(raw: RawFigures): MarginFigures {
  const net = money(raw.revenue).minus(raw.refunds);
  if (raw.unknown) return { revenue: raw.revenue, refunds: raw.refunds, upstream_cost: null, margin: null, margin_percent: null, cost_known: false, currency: 'CNY' };
  const margin = net.minus(raw.cost);
  return {
    revenue: raw.revenue,
    refunds: raw.refunds,
    upstream_cost: raw.cost,
    margin: formatMoney(margin),
    margin_percent: net.isZero() ? null : formatMoney(margin.dividedBy(net).times(100)),
    cost_known: true,
    currency: 'CNY',
  };
}

export type ServiceFilters = { user_id?: number | undefined; product_id?: number | undefined; supplier_id?: number | undefined; status?: string | undefined };

function serviceScope(p: (value: unknown) => string, filters: ServiceFilters): string {
  const where = ['true'];
  if (filters.user_id !== undefined) where.push(`s.user_id = ${p(filters.user_id)}`);
  if (filters.product_id !== undefined) where.push(`s.product_id = ${p(filters.product_id)}`);
  if (filters.supplier_id !== undefined) where.push(`s.supplier_id = ${p(filters.supplier_id)}`);
  if (filters.status !== undefined) where.push(`s.status = ${p(filters.status)}`);
  return where.join(' AND ');
}

export type ServiceMargin = MarginFigures & {
  service_id: number;
  user_id: number;
  product_id: number;
  product_name: string;
  supplier_id: number | null;
  status: string;
  created_at: Date;
};

type ServiceRowRaw = RawFigures & Omit<ServiceMargin, keyof MarginFigures>;

async function marginsOf(deps: DomainDeps, ids: number[]): Promise<Map<number, RawFigures>> {
  const { values, param } = sqlParams();
  const scope = `s.id = ANY(${param(ids)}::int[])`;
  const rows = await sqlRows<RawFigures & { service_id: number }>(
    deps,
    `WITH ${linesCte(param, scope)}
     SELECT l.service_id, ${FIGURES} FROM lines l GROUP BY l.service_id`,
    values,
  );
  return new Map(rows.map((r) => [r.service_id, r]));
}

const ZERO: RawFigures = { revenue: '0.00', refunds: '0.00', cost: '0.00', unknown: false };

/** A page of services with their margins (newest first). */
export async function listServiceMargins(
  deps: DomainDeps,
  query: ServiceFilters & { page: number; page_size: number },
): Promise<{ rows: ServiceMargin[]; total: number }> {
  const { values, param } = sqlParams();
  const scope = serviceScope(param, query);
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  const [services, total] = await Promise.all([
    sqlRows<Omit<ServiceRowRaw, keyof RawFigures>>(
      deps,
      `SELECT s.id AS service_id, s.user_id, s.product_id, s.product_name, s.supplier_id, s.status, s.created_at
         FROM services s WHERE ${scope} ORDER BY s.id DESC LIMIT ${limit} OFFSET ${offset}`,
      values,
    ),
    countServices(deps, query),
  ]);
  const figures = services.length > 0 ? await marginsOf(deps, services.map((s) => s.service_id)) : new Map<number, RawFigures>();
  return { total, rows: services.map((s) => ({ ...s, ...figuresOf(figures.get(s.service_id) ?? ZERO) })) };
}

/** The services the filters select, counted within the paging window (lib/paging.ts). */
async function countServices(deps: DomainDeps, filters: ServiceFilters): Promise<number> {
  const { values, param } = sqlParams();
  return (await sqlOne<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM services s WHERE ${serviceScope(param, filters)}`), values))?.n ?? 0;
}

/** The totals of the services the filters select (the list's `/summary`). */
export async function summariseServiceMargins(deps: DomainDeps, filters: ServiceFilters): Promise<MarginFigures & { services: number; services_cost_unknown: number }> {
  const { values, param } = sqlParams();
  const scope = serviceScope(param, filters);
  const row = await sqlOne<RawFigures & { services: number; services_cost_unknown: number }>(
    deps,
    `WITH ${linesCte(param, scope)},
     per_service AS (SELECT l.service_id, bool_or(l.unknown) AS unknown FROM lines l GROUP BY l.service_id)
     SELECT ${FIGURES},
            (SELECT count(*)::int FROM services s WHERE ${scope}) AS services,
            (SELECT count(*)::int FROM per_service WHERE unknown) AS services_cost_unknown
       FROM lines l`,
    values,
  );
  const raw = row ?? { ...ZERO, services: 0, services_cost_unknown: 0 };
  return { ...figuresOf(raw), services: raw.services, services_cost_unknown: raw.services_cost_unknown };
}

export type CostRecord = {
  id: number;
  invoice_id: number;
  kind: string;
  supplier_id: number;
  upstream_invoice_id: number;
  amount: string | null;
  via: string;
  recorded_at: Date;
};

/** One service's margin and its cost rows (404 when the service does not exist). */
export async function getServiceMargin(deps: DomainDeps, serviceId: number): Promise<ServiceMargin & { costs: CostRecord[] }> {
  const service = await sqlOne<Omit<ServiceRowRaw, keyof RawFigures>>(
    deps,
    `SELECT s.id AS service_id, s.user_id, s.product_id, s.product_name, s.supplier_id, s.status, s.created_at FROM services s WHERE s.id = $1`,
    [serviceId],
  );
  if (!service) throw notFound('服务不存在');
  const figures = (await marginsOf(deps, [serviceId])).get(serviceId) ?? ZERO;
  const costs = await sqlRows<Omit<CostRecord, 'upstream_invoice_id'> & { upstream_invoice_id: string }>(
    deps,
    `SELECT id::int AS id, invoice_id, kind, supplier_id, upstream_invoice_id::text AS upstream_invoice_id, amount::text AS amount, via, recorded_at
       FROM upstream_costs WHERE service_id = $1 ORDER BY id`,
    [serviceId],
  );
  return { ...service, ...figuresOf(figures), costs: costs.map((c) => ({ ...c, upstream_invoice_id: Number(c.upstream_invoice_id) })) };
}

export const REPORT_GROUPS = ['product', 'supplier'] as const;
export const REPORT_PERIODS = ['day', 'month'] as const;
export type ReportQuery = {
  group_by: (typeof REPORT_GROUPS)[number];
  period: (typeof REPORT_PERIODS)[number];
  from: string;
  to: string;
  product_id?: number | undefined;
  supplier_id?: number | undefined;
};

export type ReportRow = MarginFigures & { period: string; group_id: number | null; group_name: string };

function reportBase(query: ReportQuery) {
  checkRange(query.from, query.to);
  const { values, param } = sqlParams();
  const scope = serviceScope(param, { product_id: query.product_id, supplier_id: query.supplier_id });
  const from = param(query.from);
  const to = param(query.to);
  const range: LineRange = {
    lo: `(CAST(${from} AS date)::timestamp AT TIME ZONE 'Asia/Shanghai')`,
    hi: `((CAST(${to} AS date) + 1)::timestamp AT TIME ZONE 'Asia/Shanghai')`,
  };
  const inRange = `l.at >= ${range.lo} AND l.at < ${range.hi}`;
  return { values, param, scope, range, inRange };
}

/** Revenue, refunds, cost and margin per product or supplier and per day or month of the range: one page of rows. */
export async function marginReport(deps: DomainDeps, query: ReportQuery & { page: number; page_size: number }): Promise<{ rows: ReportRow[]; total: number }> {
  const { values, param, scope, range, inRange } = reportBase(query);
  const unit = query.period === 'day' ? 'day' : 'month';
  const format = query.period === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
  const group = query.group_by === 'product' ? 's.product_id' : 's.supplier_id';
  const name = query.group_by === 'product' ? '(SELECT p.name FROM products p WHERE p.id = g.group_id)' : '(SELECT su.name FROM suppliers su WHERE su.id = g.group_id)';
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  const rows = await sqlRows<RawFigures & { period: string; group_id: number | null; group_name: string | null; total: number }>(
    deps,
    `WITH ${linesCte(param, scope, range)},
     g AS (
       SELECT to_char(date_trunc('${unit}', l.at AT TIME ZONE 'Asia/Shanghai'), '${format}') AS period, ${group} AS group_id, ${FIGURES}
         FROM lines l JOIN services s ON s.id = l.service_id WHERE ${inRange} GROUP BY 1, 2)
     SELECT g.period, g.group_id, ${name} AS group_name, g.revenue, g.refunds, g.cost, g.unknown, count(*) OVER ()::int AS total
       FROM g ORDER BY g.period, g.group_id NULLS FIRST LIMIT ${limit} OFFSET ${offset}`,
    values,
  );
  const total = rows[0]?.total ?? (await reportSize(deps, query));
  return {
    total,
    rows: rows.map((r) => ({
      period: r.period,
      group_id: r.group_id,
      group_name: r.group_name ?? (r.group_id === null ? '无供应商（本地商品）' : ''),
      ...figuresOf(r),
    })),
  };
}

async function reportSize(deps: DomainDeps, query: ReportQuery): Promise<number> {
  const first = await marginReport(deps, { ...query, page: 1, page_size: 1 });
  return first.rows.length === 0 ? 0 : first.total;
}

/** The report's totals over the range (its `/summary`): they equal the sums of its rows. */
export async function marginReportSummary(deps: DomainDeps, query: ReportQuery): Promise<MarginFigures & { from: string; to: string }> {
  const { values, param, scope, range, inRange } = reportBase(query);
  const row = await sqlOne<RawFigures>(deps, `WITH ${linesCte(param, scope, range)} SELECT ${FIGURES} FROM lines l WHERE ${inRange}`, values);
  return { from: query.from, to: query.to, ...figuresOf(row ?? ZERO) };
}

/** Today's and this month's margin (the dashboard), over every service. */
export async function marginOfDays(deps: DomainDeps, from: string, to: string): Promise<MarginFigures> {
  const f = await marginReportSummary(deps, { group_by: 'product', period: 'day', from, to });
  return { revenue: f.revenue, refunds: f.refunds, upstream_cost: f.upstream_cost, margin: f.margin, margin_percent: f.margin_percent, cost_known: f.cost_known, currency: 'CNY' };
}

export type SupplierEconomics = { supplier: string; revenue: string; refunds: string; cost: string };

/** All-time revenue, refunds and upstream cost per supplier code (`local` for services without one): the Prometheus gauges. */
export async function supplierEconomics(deps: DomainDeps): Promise<SupplierEconomics[]> {
  const { values, param } = sqlParams();
  return sqlRows<SupplierEconomics>(
    deps,
    `WITH ${linesCte(param, 'true')}
     SELECT COALESCE(su.code, 'local') AS supplier, ${FIGURES}
       FROM lines l JOIN services s ON s.id = l.service_id LEFT JOIN suppliers su ON su.id = s.supplier_id
      GROUP BY 1 ORDER BY 1`,
    values,
  );
}

/** Serves the Prometheus gauges of revenue and upstream cost by supplier from this process's database; returns the way to stop. */
export function watchSupplierEconomics(deps: DomainDeps): () => void {
  return watchEconomics(() => supplierEconomics(deps));
}
