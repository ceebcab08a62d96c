import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARGIN_ORDER_TYPES, MARGIN_PURCHASE_TYPES } from '../../../db/migrations/0042-stored-margins.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { invoiceTypesWhere } from '../../../domain/billing/invoice-kinds.js';
import {
  compactMarginTotals,
  marginOfDays,
  marginReport,
  marginReportSummary,
  summariseServiceMargins,
  supplierEconomics,
  type ServiceFilters,
} from '../../../domain/economics/margins.js';
import { formatMoney, sumMoney } from '../../../lib/money.js';
import { createProduct } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * The stored margins (migration 0042, docs/economics.md "How the figures are kept") against the
 * rule itself: after writes of every kind the triggers see, each read of the stored tables equals
 * a recomputation from `service_margin_lines` over every service. Writes go straight to the tables
 * in SQL, as any code (this release's or the one before) would make them.
 */
let platform: TestPlatform;
let user1: number;
let user2: number;
let supplierA: number;
let supplierB: number;
let productA: number;
let productB: number;

const q = <T extends object>(sql: string, params: unknown[] = []) => sqlRows<T>(platform.deps, sql, params);
const one = async <T extends object>(sql: string, params: unknown[] = []) => (await sqlOne<T>(platform.deps, sql, params)) as T;
const tag = () => randomBytes(5).toString('hex');

beforeAll(async () => {
  platform = await startTestPlatform();
  user1 = (await one<{ id: number }>(`INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, [`m1-${tag()}@example.test`])).id;
  user2 = (await one<{ id: number }>(`INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, [`m2-${tag()}@example.test`])).id;
  const supplier = async (code: string) =>
    (await one<{ id: number }>(`INSERT INTO suppliers (code, name, interface_type, base_url, account) VALUES ($1, $1, 'upstream_finance_api', 'http://127.0.0.1:1', 'a') RETURNING id`, [code])).id;
  supplierA = await supplier(`sa-${tag()}`);
  supplierB = await supplier(`sb-${tag()}`);
  productA = (await createProduct(platform)).id;
  productB = (await createProduct(platform)).id;
});
afterAll(() => platform?.close());

/** An unpaid purchase invoice of `count` services (seq 1…count) in one statement. */
async function buy(userId: number, productId: number, supplierId: number | null, count: number, amount: string): Promise<{ invoiceId: number; services: number[] }> {
  const invoiceId = (await one<{ id: number }>(`INSERT INTO invoices (user_id, type, status, subject, amount) VALUES ($1, 'purchase', 'unpaid', '购买', $2) RETURNING id`, [userId, amount])).id;
  const orderId = (await one<{ id: number }>(`INSERT INTO orders (user_id, invoice_id, type, status, amount) VALUES ($1, $2, 'new_purchase', 'pending', $3) RETURNING id`, [userId, invoiceId, amount])).id;
  const rows = await q<{ id: number }>(
    `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, supplier_id)
     SELECT $1, $2, $3, $4, g, 'active', 'cloud_server', 'monthly', 1, $5 FROM generate_series(1, $6::int) g RETURNING id`,
    [userId, productId, orderId, invoiceId, supplierId, count],
  );
  return { invoiceId, services: rows.map((r) => r.id).sort((a, b) => a - b) };
}

const pay = (invoiceId: number, at: string, client?: pg.ClientBase) =>
  (client ?? { query: (sql: string, params: unknown[]) => q(sql, params) }).query(
    `UPDATE invoices SET status = 'paid', paid_at = $2, balance_amount = amount, updated_at = now() WHERE id = $1`,
    [invoiceId, at],
  );

/** A succeeded balance refund of an invoice (its refund invoice first), dated `at`. */
async function refund(invoiceId: number, amount: string, at: string, traceId: string | null = null, client?: pg.ClientBase): Promise<void> {
  const run = client ? (sql: string, params: unknown[]) => client.query(sql, params).then((r) => r.rows) : q;
  const [inv] = (await run(`SELECT user_id, refunded_amount::text AS refunded, amount::text AS amount FROM invoices WHERE id = $1`, [invoiceId])) as Array<{ user_id: number }>;
  const back = (await run(
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, origin_invoice_id, paid_at) VALUES ($1, 'refund', 'paid', '退款', -$2::numeric, -$2::numeric, $3, $4) RETURNING id`,
    [inv?.user_id, amount, invoiceId, at],
  )) as Array<{ id: number }>;
  await run(
    `INSERT INTO refunds (user_id, invoice_id, refund_invoice_id, amount, balance_part, third_party_part, refund_method, status, refunded_at, trace_id, operator_type)
     VALUES ($1, $2, $3, $4, $4, 0, 'balance', 'succeeded', $5, $6, 'admin')`,
    [inv?.user_id, invoiceId, back[0]?.id, amount, at, traceId ?? `refund-${tag()}`],
  );
  await run(
    `UPDATE invoices SET refunded_amount = refunded_amount + $2::numeric,
            status = CASE WHEN refunded_amount + $2::numeric = amount THEN 'refunded' ELSE 'partially_refunded' END WHERE id = $1`,
    [invoiceId, amount],
  );
}

let upstreamBill = 1;
const cost = (serviceId: number, invoiceId: number, supplierId: number, productId: number, amount: string | null, at: string, client?: pg.ClientBase) =>
  (client ?? { query: (sql: string, params: unknown[]) => q(sql, params) }).query(
    `INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via, recorded_at)
     VALUES ($1, $2, $3, $4, 'provision', $5, $6, 'paid', $7)`,
    [serviceId, invoiceId, supplierId, productId, upstreamBill++ + Math.floor(Math.random() * 1e9), amount, at],
  );

async function bind(serviceId: number, productId: number, supplierId: number): Promise<void> {
  await q(`INSERT INTO service_upstream_bindings (service_id, product_id, supplier_id, provider_key, upstream_product_id) VALUES ($1, $2, $3, 'upstream_finance_api', '101')`, [
    serviceId,
    productId,
    supplierId,
  ]);
}

/** A paid service order (renewal or upgrade) of a service, its upstream bill paid or not. */
async function serviceOrder(serviceId: number, userId: number, type: 'renew' | 'upgrade', amount: string, at: string, upstreamPaid: boolean): Promise<number> {
  const invoiceId = (await one<{ id: number }>(`INSERT INTO invoices (user_id, type, status, subject, amount, service_id) VALUES ($1, $2, 'unpaid', '续费', $3, $4) RETURNING id`, [userId, type, amount, serviceId])).id;
  await q(
    `INSERT INTO service_orders (invoice_id, service_id, user_id, kind, amount, workflow_id, billing_period, months, upgrade_config, upgrade_price)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    type === 'renew'
      ? [invoiceId, serviceId, userId, 'renew', amount, `wf-${tag()}`, 'monthly', 1, null, null]
      : [invoiceId, serviceId, userId, 'upgrade', amount, `wf-${tag()}`, null, null, JSON.stringify({ cpu: 4 }), amount],
  );
  await pay(invoiceId, at);
  if (upstreamPaid) await q(`UPDATE service_orders SET upstream_paid_at = $2, upstream_invoice_id = $3 WHERE invoice_id = $1`, [invoiceId, at, upstreamBill++ + 5e8]);
  return invoiceId;
}

type Line = { service_id: number; day: string; revenue: string; refunds: string; cost: string; unknown: boolean };
type ServiceRow = { id: number; user_id: number; product_id: number; supplier_id: number | null; status: string; code: string | null };
type Figures = { revenue: string; refunds: string; upstream_cost: string | null; cost_known: boolean };

/** Every money line by the rule, read once, and the services as they are now. */
async function ruleNow(): Promise<{ lines: Array<Line & { s: ServiceRow }>; services: ServiceRow[] }> {
  const services = await q<ServiceRow>(`SELECT s.id, s.user_id, s.product_id, s.supplier_id, s.status, su.code FROM services s LEFT JOIN suppliers su ON su.id = s.supplier_id`);
  const byId = new Map(services.map((s) => [s.id, s]));
  const lines = await q<Line>(
    `SELECT l.service_id, to_char((l.at AT TIME ZONE 'Asia/Shanghai')::date, 'YYYY-MM-DD') AS day,
            l.revenue::text AS revenue, l.refunds::text AS refunds, l.cost::text AS cost, l.unknown
       FROM service_margin_lines(ARRAY(SELECT id FROM services)) l`,
  );
  return { services, lines: lines.map((l) => ({ ...l, s: byId.get(l.service_id) as ServiceRow })) };
}

function sumOf(lines: Line[]): Figures {
  const unknown = lines.some((l) => l.unknown);
  const cost = formatMoney(sumMoney(lines.map((l) => l.cost)));
  return {
    revenue: formatMoney(sumMoney(lines.map((l) => l.revenue))),
    refunds: formatMoney(sumMoney(lines.map((l) => l.refunds))),
    upstream_cost: unknown ? null : cost,
    cost_known: !unknown,
  };
}

const matches = (s: ServiceRow, f: ServiceFilters) =>
  (f.user_id === undefined || s.user_id === f.user_id) &&
  (f.product_id === undefined || s.product_id === f.product_id) &&
  (f.supplier_id === undefined || s.supplier_id === f.supplier_id) &&
  (f.status === undefined || s.status === f.status);

const pick = <T extends Figures>(f: T): Figures => ({ revenue: f.revenue, refunds: f.refunds, upstream_cost: f.upstream_cost, cost_known: f.cost_known });

/** Every read of the stored tables equals its recomputation from the rule. */
async function expectStoredEqualsRule(from = '2026-03-01', to = '2026-04-30'): Promise<void> {
  const { lines, services } = await ruleNow();
  const filterSets: ServiceFilters[] = [
    {},
    { product_id: productA },
    { product_id: productB },
    { supplier_id: supplierA },
    { supplier_id: supplierB },
    { status: 'active' },
    { status: 'suspended' },
    { user_id: user1 },
    { user_id: user2, product_id: productA },
    { product_id: productA, supplier_id: supplierA, status: 'active' },
  ];
  for (const filters of filterSets) {
    const stored = await summariseServiceMargins(platform.deps, filters);
    const scoped = lines.filter((l) => matches(l.s, filters));
    expect({ ...pick(stored), services: stored.services, services_cost_unknown: stored.services_cost_unknown }, JSON.stringify(filters)).toEqual({
      ...sumOf(scoped),
      services: services.filter((s) => matches(s, filters)).length,
      services_cost_unknown: new Set(scoped.filter((l) => l.unknown).map((l) => l.service_id)).size,
    });
  }
  const inRange = lines.filter((l) => l.day >= from && l.day <= to);
  for (const groupBy of ['product', 'supplier'] as const) {
    for (const period of ['day', 'month'] as const) {
      for (const filters of [{}, { product_id: productA }, { supplier_id: supplierB }] as Array<{ product_id?: number; supplier_id?: number }>) {
        const scoped = inRange.filter((l) => matches(l.s, filters));
        const groups = new Map<string, { period: string; group_id: number | null; lines: Line[] }>();
        for (const l of scoped) {
          const key = { period: period === 'day' ? l.day : l.day.slice(0, 7), group_id: groupBy === 'product' ? l.s.product_id : l.s.supplier_id };
          const id = `${key.period}|${key.group_id}`;
          if (!groups.has(id)) groups.set(id, { ...key, lines: [] });
          groups.get(id)?.lines.push(l);
        }
        const expected = [...groups.values()]
          .sort((a, b) => (a.period === b.period ? (a.group_id ?? -1) - (b.group_id ?? -1) : a.period < b.period ? -1 : 1))
          .map((g) => ({ period: g.period, group_id: g.group_id, ...sumOf(g.lines) }));
        const report = await marginReport(platform.deps, { group_by: groupBy, period, from, to, ...filters, page: 1, page_size: 500 });
        expect(report.rows.map((r) => ({ period: r.period, group_id: r.group_id, ...pick(r) })), `${groupBy} ${period} ${JSON.stringify(filters)}`).toEqual(expected);
        expect(report.total).toBe(expected.length);
        const summary = await marginReportSummary(platform.deps, { group_by: groupBy, period, from, to, ...filters });
        expect(pick(summary)).toEqual(sumOf(scoped));
      }
    }
  }
  // The dashboard's day and month.
  for (const [dayFrom, dayTo] of [
    ['2026-03-02', '2026-03-02'],
    ['2026-03-01', '2026-03-31'],
    ['2026-04-01', '2026-04-30'],
  ] as const) {
    expect(pick(await marginOfDays(platform.deps, dayFrom, dayTo))).toEqual(sumOf(lines.filter((l) => l.day >= dayFrom && l.day <= dayTo)));
  }
  // The gauges: all time per supplier code, every supplier with services.
  const codes = [...new Set(services.map((s) => s.code ?? 'local'))].sort();
  const gauges = await supplierEconomics(platform.deps);
  expect(gauges.map((g) => ({ supplier: g.supplier, revenue: g.revenue, refunds: g.refunds, cost: g.cost }))).toEqual(
    codes.map((code) => {
      const of = lines.filter((l) => (l.s.code ?? 'local') === code);
      return { supplier: code, revenue: sumOf(of).revenue, refunds: sumOf(of).refunds, cost: formatMoney(sumMoney(of.map((l) => l.cost))) };
    }),
  );
  // Each service's stored row is its own recomputation, in the group it is in now.
  const drift = await q(
    `SELECT m.service_id FROM service_margins m
       LEFT JOIN (SELECT l.service_id, sum(l.revenue) AS revenue, sum(l.refunds) AS refunds, sum(l.cost) AS cost, bool_or(l.unknown) AS unknown
                    FROM service_margin_lines(ARRAY(SELECT id FROM services)) l GROUP BY 1) r ON r.service_id = m.service_id
       JOIN services s ON s.id = m.service_id
      WHERE (m.revenue, m.refunds, m.cost, m.unknown, m.product_id, m.supplier_id, m.status, m.user_id)
            IS DISTINCT FROM (COALESCE(r.revenue, 0), COALESCE(r.refunds, 0), COALESCE(r.cost, 0), COALESCE(r.unknown, false), s.product_id, s.supplier_id, s.status, s.user_id)`,
  );
  expect(drift).toEqual([]);
  expect((await one<{ n: number }>(`SELECT count(*)::int AS n FROM services s WHERE NOT EXISTS (SELECT 1 FROM service_margins m WHERE m.service_id = s.id)`)).n).toBe(0);
}

describe('stored margins', () => {
  it('bakes into the SQL rule the invoice kinds of domain/billing/invoice-kinds.ts', () => {
    expect([...MARGIN_PURCHASE_TYPES].sort()).toEqual([...invoiceTypesWhere('fulfilment', 'provisioning')].sort());
    expect([...MARGIN_ORDER_TYPES].sort()).toEqual([...invoiceTypesWhere('fulfilment', 'service_order')].sort());
  });

  it('equals the rule recomputed after payments, refunds, costs, pay flags, moves and service orders', async () => {
    // A purchase of three services: 100.00 shared 33.34 / 33.33 / 33.33.
    const three = await buy(user1, productA, supplierA, 3, '100.00');
    await pay(three.invoiceId, '2026-03-01T17:00:00Z'); // 2026-03-02 in Shanghai
    const shares = await q<{ revenue: string }>(`SELECT revenue::text FROM service_margins WHERE service_id = ANY($1::int[]) ORDER BY service_id`, [three.services]);
    expect(shares.map((s) => s.revenue)).toEqual(['33.34', '33.33', '33.33']);
    for (const id of three.services) await bind(id, productA, supplierA);
    await cost(three.services[0] ?? 0, three.invoiceId, supplierA, productA, '20.00', '2026-03-02T03:00:00Z');
    // Pay attempted, no amount: unknown until a cost with an amount is recorded.
    await q(`UPDATE service_upstream_bindings SET pay_attempted_at = $2 WHERE service_id = $1`, [three.services[1], '2026-03-02T03:00:00Z']);
    await expectStoredEqualsRule();
    expect((await summariseServiceMargins(platform.deps, { product_id: productA })).cost_known).toBe(false);
    await cost(three.services[1] ?? 0, three.invoiceId, supplierA, productA, null, '2026-03-03T03:00:00Z');
    // A cancellation refund of one provisioning, another refund shared by the three.
    await refund(three.invoiceId, '10.00', '2026-03-05T02:00:00Z', `provision-cancel:${three.services[2]}`);
    await refund(three.invoiceId, '5.00', '2026-03-06T02:00:00Z');
    await expectStoredEqualsRule();

    // A single service without a supplier, another user's; renewals and an upgrade.
    const local = await buy(user2, productA, null, 1, '59.90');
    await pay(local.invoiceId, '2026-03-10T10:00:00Z');
    const single = await buy(user2, productB, supplierB, 1, '80.00');
    await pay(single.invoiceId, '2026-03-31T20:00:00Z'); // 2026-04-01 in Shanghai
    await bind(single.services[0] ?? 0, productB, supplierB);
    await q(`UPDATE service_upstream_bindings SET upstream_paid_at = $2 WHERE service_id = $1`, [single.services[0], '2026-04-01T01:00:00Z']);
    await cost(single.services[0] ?? 0, single.invoiceId, supplierB, productB, '50.00', '2026-04-01T01:00:00Z');
    const renewal = await serviceOrder(single.services[0] ?? 0, user2, 'renew', '80.00', '2026-04-15T04:00:00Z', true);
    await expectStoredEqualsRule();
    await cost(single.services[0] ?? 0, renewal, supplierB, productB, '49.00', '2026-04-15T05:00:00Z');
    await serviceOrder(three.services[0] ?? 0, user1, 'upgrade', '12.50', '2026-04-20T04:00:00Z', false);
    await refund(renewal, '80.00', '2026-04-16T04:00:00Z');
    await expectStoredEqualsRule();

    // Moves between groups: status, product, supplier, owner.
    await q(`UPDATE services SET status = 'suspended' WHERE id = $1`, [three.services[0]]);
    await q(`UPDATE services SET product_id = $2 WHERE id = $1`, [three.services[1], productB]);
    await q(`UPDATE services SET supplier_id = $2 WHERE id = $1`, [local.services[0], supplierB]);
    await q(`UPDATE services SET user_id = $2 WHERE id = $1`, [three.services[2], user2]);
    // A cost corrected, another removed, the pay flag cleared.
    await q(`UPDATE upstream_costs SET amount = 22.00 WHERE service_id = $1 AND invoice_id = $2`, [three.services[0], three.invoiceId]);
    await q(`DELETE FROM upstream_costs WHERE service_id = $1 AND invoice_id = $2`, [three.services[1], three.invoiceId]);
    await expectStoredEqualsRule();
    await q(`UPDATE service_upstream_bindings SET pay_attempted_at = NULL WHERE service_id = $1`, [three.services[1]]);
    // An update the rule cannot see writes nothing.
    const before = await one<{ n: number }>(`SELECT (SELECT count(*) FROM margin_day_totals) + (SELECT count(*) FROM service_margin_totals) AS n`);
    await q(`UPDATE invoices SET remark = 'x', updated_at = now() WHERE id = $1`, [three.invoiceId]);
    await q(`UPDATE services SET hostname = 'h.example.test' WHERE id = ANY($1::int[])`, [three.services]);
    expect(await one<{ n: number }>(`SELECT (SELECT count(*) FROM margin_day_totals) + (SELECT count(*) FROM service_margin_totals) AS n`)).toEqual(before);
    await expectStoredEqualsRule();
  }, 300_000);

  it('stays exact under twenty concurrent transactions writing on the same product and day, without a deadlock', async () => {
    const bought = await Promise.all(Array.from({ length: 20 }, (_, i) => buy(i % 2 ? user1 : user2, productA, supplierA, 1 + (i % 3), '30.00')));
    const clients = await Promise.all(bought.map(async () => {
      const c = new pg.Client({ connectionString: platform.env.DATABASE_URL });
      await c.connect();
      return c;
    }));
    try {
      const results = await Promise.allSettled(
        bought.map(async (b, i) => {
          const c = clients[i] as pg.Client;
          await c.query('BEGIN');
          try {
            await pay(b.invoiceId, '2026-03-20T02:00:00Z', c);
            for (const id of b.services) await cost(id, b.invoiceId, supplierA, productA, i % 4 === 0 ? null : '7.00', '2026-03-20T03:00:00Z', c);
            if (i % 2 === 0) await refund(b.invoiceId, '3.00', '2026-03-20T04:00:00Z', null, c);
            await c.query('COMMIT');
          } catch (error) {
            await c.query('ROLLBACK');
            throw error;
          }
        }),
      );
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    await expectStoredEqualsRule();
    const day = await marginReportSummary(platform.deps, { group_by: 'product', period: 'day', from: '2026-03-20', to: '2026-03-20', product_id: productA });
    expect(day.revenue).toBe('600.00');
    expect(day.refunds).toBe('30.00');
  }, 300_000);

  it('handles one statement inserting thousands of services of one invoice, and one updating them all', async () => {
    const bulk = await buy(user1, productB, supplierA, 3000, '9000.01');
    await pay(bulk.invoiceId, '2026-04-02T02:00:00Z');
    await q(`UPDATE services SET status = 'suspended' WHERE invoice_id = $1`, [bulk.invoiceId]);
    const stored = await one<{ revenue: string; n: number; first: string }>(
      `SELECT sum(revenue)::text AS revenue, count(*)::int AS n, (SELECT revenue::text FROM service_margins WHERE service_id = $2) AS first
         FROM service_margins WHERE service_id = ANY($1::int[])`,
      [bulk.services, bulk.services[0]],
    );
    expect(stored).toEqual({ revenue: '9000.01', n: 3000, first: '3.01' });
    const summary = await summariseServiceMargins(platform.deps, { product_id: productB, status: 'suspended', supplier_id: supplierA });
    expect(summary).toMatchObject({ revenue: '9000.01', services: 3000, services_cost_unknown: 0 });
    await expectStoredEqualsRule();

    // Services joining a paid invoice afterwards: 3,000 → 3,002 changes every share (3.00 → 2.99)…
    const order = (await one<{ order_id: number }>(`SELECT order_id FROM services WHERE id = $1`, [bulk.services[0]])).order_id;
    const join = (invoiceId: number, seqs: number[]) =>
      q(`INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, supplier_id)
         SELECT $1, $2, $3, $4, g, 'suspended', 'cloud_server', 'monthly', 1, $5 FROM unnest($6::int[]) g`, [user1, productB, order, invoiceId, supplierA, seqs]);
    await join(bulk.invoiceId, [3001, 3002]);
    expect((await one<{ revenue: string }>(`SELECT revenue::text FROM service_margins WHERE service_id = $1`, [bulk.services[1]])).revenue).toBe('2.99');
    // …while ten services sharing 0.05 keep 0.00 each when an eleventh joins (only the first by
    // seq may change); the first moved behind makes the second first, with the cents left over.
    const few = await buy(user2, productA, supplierB, 10, '0.05');
    await pay(few.invoiceId, '2026-04-03T02:00:00Z');
    await refund(few.invoiceId, '0.03', '2026-04-04T02:00:00Z');
    await join(few.invoiceId, [11]);
    await expectStoredEqualsRule();
    await q(`UPDATE services SET seq = 30 WHERE id = $1`, [few.services[0]]);
    await expectStoredEqualsRule();
    const firsts = await q<{ service_id: number; revenue: string; refunds: string }>(
      `SELECT m.service_id, m.revenue::text AS revenue, m.refunds::text AS refunds FROM service_margins m JOIN services s ON s.id = m.service_id
        WHERE s.invoice_id = $1 AND (m.revenue <> 0 OR m.refunds <> 0)`,
      [few.invoiceId],
    );
    expect(firsts).toHaveLength(1);
    expect(firsts[0]).toMatchObject({ revenue: '0.05', refunds: '0.03' });
    expect(firsts[0]?.service_id).not.toBe(few.services[0]);
    // A service leaving (deleted, and moved to another invoice by seq and invoice): the rest as the rule says.
    await q(`DELETE FROM services WHERE id = $1`, [firsts[0]?.service_id]);
    await q(`UPDATE services SET seq = 1 WHERE id = $1`, [few.services[5]]);
    await q(`UPDATE services SET invoice_id = $2, seq = 5000 WHERE id = $1`, [few.services[6], bulk.invoiceId]);
    await expectStoredEqualsRule();
  }, 300_000);

  it('folds the deltas into one row per key, concurrently with writes, leaving every read unchanged', async () => {
    const deltas = await one<{ n: number }>(`SELECT count(*)::int AS n FROM margin_day_totals`);
    const writes = (async () => {
      for (let i = 0; i < 8; i++) {
        const b = await buy(user2, productA, supplierB, 2, '40.00');
        await pay(b.invoiceId, '2026-03-21T02:00:00Z');
        await cost(b.services[0] ?? 0, b.invoiceId, supplierB, productA, '9.00', '2026-03-21T02:30:00Z');
      }
    })();
    const folds = (async () => {
      const runs = [];
      for (let i = 0; i < 6; i++) runs.push(await compactMarginTotals(platform.deps));
      return runs;
    })();
    const [, runs] = await Promise.all([writes, folds]);
    expect(runs.some((r) => r.days_folded > 0)).toBe(true);
    expect(deltas.n).toBeGreaterThan(0);
    await expectStoredEqualsRule();
    await compactMarginTotals(platform.deps);
    const keys = await one<{ rows: number; keys: number; totals: number; total_keys: number }>(
      `SELECT (SELECT count(*) FROM margin_day_totals)::int AS rows,
              (SELECT count(DISTINCT (day, product_id, COALESCE(supplier_id, 0))) FROM margin_day_totals)::int AS keys,
              (SELECT count(*) FROM service_margin_totals)::int AS totals,
              (SELECT count(DISTINCT (product_id, COALESCE(supplier_id, 0), status)) FROM service_margin_totals)::int AS total_keys`,
    );
    expect(keys.rows).toBe(keys.keys);
    expect(keys.totals).toBe(keys.total_keys);
    await expectStoredEqualsRule();
  }, 300_000);
});
