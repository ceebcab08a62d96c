import { inTransaction, sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { notFound } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import { watchEconomics } from '../../lib/metrics.js';
import { checkRange } from '../dashboard/figures.js';
import type { DomainDeps } from '../deps.js';
import { windowCountSql } from '../../db/window-count.js';
import { foldDeltaRows } from '../../db/delta-rows.js';

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
 *
 * The rule itself is one SQL function, `service_margin_lines(ids)` (migration
 * `db/migrations/0042-stored-margins.ts`); triggers keep its results in `service_margins`,
 * `service_margin_days` and the append-only delta tables `service_margin_totals` and
 * `margin_day_totals`, in the transaction of each write. These reads only sum the stored rows
 * (issue #35: the same time at any size, exact right after a commit).
 */

/** Summed stored figures as text (`t` the stored rows; `unknown` is the SQL of "some cost unknown"). */
const figures = (unknown: string) => `
  COALESCE(sum(t.revenue), 0)::numeric(16,2)::text AS revenue,
  COALESCE(sum(t.refunds), 0)::numeric(16,2)::text AS refunds,
  COALESCE(sum(t.cost), 0)::numeric(16,2)::text AS cost,
  COALESCE(${unknown}, false) AS unknown`;

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

/** The filters as a condition on `alias` (a table with `user_id`, `product_id`, `supplier_id`, `status` columns). */
function filterWhere(p: (value: unknown) => string, filters: ServiceFilters, alias: string): string {
  const where = ['true'];
  if (filters.user_id !== undefined) where.push(`${alias}.user_id = ${p(filters.user_id)}`);
  if (filters.product_id !== undefined) where.push(`${alias}.product_id = ${p(filters.product_id)}`);
  if (filters.supplier_id !== undefined) where.push(`${alias}.supplier_id = ${p(filters.supplier_id)}`);
  if (filters.status !== undefined) where.push(`${alias}.status = ${p(filters.status)}`);
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

/** A service's stored figures (`m`: its `service_margins` row, null before it has one). */
const SERVICE_FIGURES = `
  COALESCE(m.revenue, 0)::numeric(16,2)::text AS revenue, COALESCE(m.refunds, 0)::numeric(16,2)::text AS refunds,
  COALESCE(m.cost, 0)::numeric(16,2)::text AS cost,
  COALESCE(m.unknown, false) AS unknown`;

/** A page of services with their margins (newest first). */
export async function listServiceMargins(
  deps: DomainDeps,
  query: ServiceFilters & { page: number; page_size: number },
): Promise<{ rows: ServiceMargin[]; total: number }> {
  const { values, param } = sqlParams();
  const scope = filterWhere(param, query, 's');
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  const [services, total] = await Promise.all([
    sqlRows<ServiceRowRaw>(
      deps,
      `SELECT p.*, ${SERVICE_FIGURES}
         FROM (SELECT s.id AS service_id, s.user_id, s.product_id, s.product_name, s.supplier_id, s.status, s.created_at
                 FROM services s WHERE ${scope} ORDER BY s.id DESC LIMIT ${limit} OFFSET ${offset}) p
         LEFT JOIN service_margins m ON m.service_id = p.service_id
        ORDER BY p.service_id DESC`,
      values,
    ),
    countServices(deps, query),
  ]);
  return { total, rows: services.map(({ revenue, refunds, cost, unknown, ...s }) => ({ ...s, ...figuresOf({ revenue, refunds, cost, unknown }) })) };
}

/** The services the filters select, counted within the paging window (lib/paging.ts). */
async function countServices(deps: DomainDeps, filters: ServiceFilters): Promise<number> {
  const { values, param } = sqlParams();
  return (await sqlOne<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM services s WHERE ${filterWhere(param, filters, 's')}`), values))?.n ?? 0;
}

/**
 * The totals of the services the filters select (the list's `/summary`). Without `user_id` they
 * are the sums of the few `service_margin_totals` rows of the filters' groups; with it, of that
 * user's `service_margins` rows.
 */
export async function summariseServiceMargins(deps: DomainDeps, filters: ServiceFilters): Promise<MarginFigures & { services: number; services_cost_unknown: number }> {
  const { values, param } = sqlParams();
  const sql =
    filters.user_id === undefined
      ? `SELECT ${figures('sum(t.services_cost_unknown) > 0')}, COALESCE(sum(t.services), 0)::int AS services, COALESCE(sum(t.services_cost_unknown), 0)::int AS services_cost_unknown
           FROM service_margin_totals t WHERE ${filterWhere(param, filters, 't')}`
      : `SELECT ${figures('bool_or(t.unknown)')}, count(*)::int AS services, (count(*) FILTER (WHERE t.unknown))::int AS services_cost_unknown
           FROM service_margins t WHERE ${filterWhere(param, filters, 't')}`;
  const raw = (await sqlOne<RawFigures & { services: number; services_cost_unknown: number }>(deps, sql, values)) ?? { ...ZERO, services: 0, services_cost_unknown: 0 };
  return { ...figuresOf(raw), services: raw.services, services_cost_unknown: raw.services_cost_unknown };
}

const ZERO: RawFigures = { revenue: '0.00', refunds: '0.00', cost: '0.00', unknown: false };

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
  // One snapshot for the kept figures and the cost records: a cost recorded between two reads
  // would otherwise show its record beside figures that do not include it yet.
  return inTransaction(deps, async (tx) => {
    await sqlRows(deps, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ', [], tx);
    const service = await sqlOne<ServiceRowRaw>(
      deps,
      `SELECT s.id AS service_id, s.user_id, s.product_id, s.product_name, s.supplier_id, s.status, s.created_at, ${SERVICE_FIGURES}
         FROM services s LEFT JOIN service_margins m ON m.service_id = s.id WHERE s.id = $1`,
      [serviceId],
      tx,
    );
    if (!service) throw notFound('服务不存在');
    const { revenue, refunds, cost, unknown, ...rest } = service;
    const costs = await sqlRows<Omit<CostRecord, 'upstream_invoice_id'> & { upstream_invoice_id: string }>(
      deps,
      `SELECT id::int AS id, invoice_id, kind, supplier_id, upstream_invoice_id::text AS upstream_invoice_id, amount::text AS amount, via, recorded_at
         FROM upstream_costs WHERE service_id = $1 ORDER BY id`,
      [serviceId],
      tx,
    );
    return { ...rest, ...figuresOf({ revenue, refunds, cost, unknown }), costs: costs.map((c) => ({ ...c, upstream_invoice_id: Number(c.upstream_invoice_id) })) };
  });
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

/** The `margin_day_totals` rows (`t`) of the range's Asia/Shanghai days and the report's filters. */
function reportBase(query: ReportQuery) {
  checkRange(query.from, query.to);
  const { values, param } = sqlParams();
  const where = [
    `t.day >= CAST(${param(query.from)} AS date)`,
    `t.day <= CAST(${param(query.to)} AS date)`,
    filterWhere(param, { product_id: query.product_id, supplier_id: query.supplier_id }, 't'),
  ].join(' AND ');
  return { values, param, where };
}

/** Revenue, refunds, cost and margin per product or supplier and per day or month of the range: one page of rows. */
export async function marginReport(deps: DomainDeps, query: ReportQuery & { page: number; page_size: number }): Promise<{ rows: ReportRow[]; total: number }> {
  const { values, param, where } = reportBase(query);
  const period = query.period === 'day' ? 't.day' : `date_trunc('month', t.day)::date`;
  const format = query.period === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
  const group = query.group_by === 'product' ? 't.product_id' : 't.supplier_id';
  const name = query.group_by === 'product' ? '(SELECT p.name FROM products p WHERE p.id = page.group_id)' : '(SELECT su.name FROM suppliers su WHERE su.id = page.group_id)';
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  // A row per period and group with a line in it (the delta rows of a key sum to its lines);
  // grouped on the date itself, the page alone formatted and named.
  const rows = await sqlRows<RawFigures & { period: string; group_id: number | null; group_name: string | null; total: number }>(
    deps,
    `WITH g AS (
       SELECT ${period} AS period, ${group} AS group_id, sum(t.revenue) AS revenue, sum(t.refunds) AS refunds, sum(t.cost) AS cost,
              sum(t.unknown_days) > 0 AS unknown
         FROM margin_day_totals t WHERE ${where} GROUP BY 1, 2 HAVING sum(t.lines) > 0),
     page AS (SELECT g.*, count(*) OVER ()::int AS total FROM g ORDER BY g.period, g.group_id NULLS FIRST LIMIT ${limit} OFFSET ${offset})
     SELECT to_char(page.period, '${format}') AS period, page.group_id, ${name} AS group_name,
            page.revenue::numeric(16,2)::text AS revenue, page.refunds::numeric(16,2)::text AS refunds, page.cost::numeric(16,2)::text AS cost,
            page.unknown, page.total
       FROM page ORDER BY page.period, page.group_id NULLS FIRST`,
    values,
  );
  // An empty page past the end learns the total from the first page; an empty first page is 0.
  const total = rows[0]?.total ?? (query.page > 1 ? await reportSize(deps, query) : 0);
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
  const { values, where } = reportBase(query);
  const row = await sqlOne<RawFigures>(deps, `SELECT ${figures('sum(t.unknown_days) > 0')} FROM margin_day_totals t WHERE ${where}`, values);
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
  return sqlRows<SupplierEconomics>(
    deps,
    `SELECT COALESCE(su.code, 'local') AS supplier, ${figures('false')}
       FROM service_margin_totals t LEFT JOIN suppliers su ON su.id = t.supplier_id
      GROUP BY 1 HAVING sum(t.services) > 0 ORDER BY 1`,
    [],
  );
}

/** Serves the Prometheus gauges of revenue and upstream cost by supplier from this process's database; returns the way to stop. */
export function watchSupplierEconomics(deps: DomainDeps): () => void {
  return watchEconomics(() => supplierEconomics(deps));
}

/**
 * Folds the delta rows of `service_margin_totals` and `margin_day_totals` into one row per key
 * (the task `economics.compact_margin_totals`, every heartbeat) with `foldDeltaRows`
 * (db/delta-rows.ts): every margin read answers the same before and after.
 */
export async function compactMarginTotals(deps: DomainDeps): Promise<{ totals_folded: number; totals_kept: number; days_folded: number; days_kept: number }> {
  const sums = ['revenue', 'refunds', 'cost'];
  const totals = await foldDeltaRows(deps, { table: 'service_margin_totals', keys: ['product_id', 'supplier_id', 'status'], sums: [...sums, 'services', 'services_cost_unknown'] });
  const days = await foldDeltaRows(deps, { table: 'margin_day_totals', keys: ['day', 'product_id', 'supplier_id'], sums: [...sums, 'unknown_days', 'lines'] });
  return { totals_folded: totals.folded, totals_kept: totals.kept, days_folded: days.folded, days_kept: days.kept };
}
