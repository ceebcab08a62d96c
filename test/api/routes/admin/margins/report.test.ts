import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchSupplierEconomics } from '../../../../../domain/economics/margins.js';
import { recordUpstreamPaid } from '../../../../../domain/upstream-work/cost.js';
import { provisioningWork } from '../../../../../domain/upstream-work/kinds.js';
import { shanghaiToday } from '../../../../../domain/dashboard/figures.js';
import { metricsRegistry } from '../../../../../lib/metrics.js';
import { money, sumMoney, formatMoney } from '../../../../../lib/money.js';
import { expectError } from '../../../../helpers/http.js';
import { adjustBalance, purchase, registerClient, type TestClient } from '../../../../helpers/billing.js';
import { PROVISION_TEST_ENV, serviceReaches } from '../../../../helpers/provisioning.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../../helpers/services.js';
import { eventually } from '../../../../helpers/wait.js';

/**
 * What each sale cost us (docs/economics.md): purchases, a renewal and a refund through the real
 * flow against the upstream sandbox, then the cost rows, the margins per service, the report and
 * its summary, the dashboard and the Prometheus gauges, checked against the invoices, the refunds
 * and what the sandbox account was charged.
 */
let platform: ServicesPlatform;
let token: string;
let client: TestClient;
const CREDIT = '10000.00';

beforeAll(async () => {
  platform = await startServicesPlatform(PROVISION_TEST_ENV);
  token = await platform.rootToken();
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
  platform.sandbox.control.setCredit(CREDIT);
});
afterAll(() => platform?.close());

const base = '/api/v2/admin/economics/margins';

/** What the sandbox account paid for everything bought in this file. */
const upstreamCharged = () => formatMoney(money(CREDIT).minus(platform.sandbox.control.credit()));

async function buy(): Promise<{ serviceId: number; invoiceId: number; amount: string }> {
  const invoice = await purchase(platform, client, platform.productId);
  const paid = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
  expect(paid.body.code, paid.body.message).toBe(0);
  const service = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } }));
  expect((await serviceReaches(platform, service.id, ['active', 'failed'])).status).toBe('active');
  return { serviceId: service.id, invoiceId: invoice.id, amount: invoice.amount };
}

async function renew(serviceId: number): Promise<{ id: number; amount: string }> {
  const res = await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
  expect(res.body.code, res.body.message).toBe(0);
  const paid = await platform.api.post(`/api/v2/client/invoices/${res.body.data.id}/pay/balance`, { token: client.token });
  expect(paid.body.code, paid.body.message).toBe(0);
  await eventually(async () => {
    const order = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: res.body.data.id } });
    return order?.status === 'succeeded' ? order : null;
  }, 400);
  return { id: res.body.data.id, amount: res.body.data.amount };
}

type CostRow = { service_id: number; invoice_id: number; kind: string; amount: string | null; via: string; upstream_invoice_id: string };
const costRows = () => platform.deps.db.read<CostRow>('SELECT service_id, invoice_id, kind, amount::text AS amount, via, upstream_invoice_id::text FROM upstream_costs ORDER BY id', []);

/** A range of three Shanghai days around now: the money of this file falls inside whatever the clock says. */
function range() {
  const day = 86_400_000;
  return { from: shanghaiToday(new Date(Date.now() - day)).today, to: shanghaiToday(new Date(Date.now() + day)).today };
}

let first: { serviceId: number; invoiceId: number; amount: string };
let second: { serviceId: number; invoiceId: number; amount: string };
let renewal: { id: number; amount: string };

describe('upstream costs', () => {
  it('records one cost per upstream payment, also when the pay answer was lost and the payment reconciled', async () => {
    first = await buy();
    platform.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    second = await buy();
    platform.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    renewal = await renew(first.serviceId);

    const rows = await costRows();
    expect(rows.map((r) => [r.service_id, r.invoice_id, r.kind, r.via])).toEqual([
      [first.serviceId, first.invoiceId, 'provision', 'paid'],
      [second.serviceId, second.invoiceId, 'provision', 'reconciled'],
      [first.serviceId, renewal.id, 'renew', 'reconciled'],
    ]);
    for (const row of rows) {
      expect(row.amount).toMatch(/^\d+\.\d{2}$/);
      expect(money(row.amount ?? '0').greaterThan(0)).toBe(true);
      expect(platform.sandbox.control.ledger().pays[row.upstream_invoice_id]).toBe(1);
    }
    // What the rows say it cost is what the upstream account was charged.
    expect(formatMoney(sumMoney(rows.map((r) => r.amount ?? '0')))).toBe(upstreamCharged());
    const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(second.serviceId);
    expect(binding?.upstream_paid_at).toBeInstanceOf(Date);
  });
});

describe('margins', () => {
  it('answers a service’s revenue, refunds, cost and margin from its invoices, refunds and cost rows', async () => {
    const refunded = await platform.api.post(`/api/v2/admin/users/${client.id}/invoices/${first.invoiceId}/refunds`, {
      token,
      body: { refund_method: 'balance', amount: '10.00', remark: '部分退款' },
    });
    expect(refunded.body.code, refunded.body.message).toBe(0);

    const res = await platform.api.get(`${base}/services/${first.serviceId}`, { token });
    expect(res.body.code, res.body.message).toBe(0);
    const costs = (await costRows()).filter((r) => r.service_id === first.serviceId);
    const revenue = sumMoney([first.amount, renewal.amount]);
    const cost = sumMoney(costs.map((c) => c.amount ?? '0'));
    const margin = revenue.minus('10.00').minus(cost);
    expect(res.body.data).toMatchObject({
      service_id: first.serviceId,
      revenue: formatMoney(revenue),
      refunds: '10.00',
      upstream_cost: formatMoney(cost),
      margin: formatMoney(margin),
      margin_percent: formatMoney(margin.dividedBy(revenue.minus('10.00')).times(100)),
      cost_known: true,
      currency: 'CNY',
    });
    expect(res.body.data.costs).toHaveLength(2);
    // The catalogue marks the upstream price up by 20 %: these sales made money.
    expect(margin.greaterThan(0)).toBe(true);
  });

  it('shows the cost of a service bought before costs were recorded as unknown, never as zero', async () => {
    const old = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform) });
    // Bought and paid upstream in 2025, before costs were recorded.
    const bought = new Date('2025-06-01T00:00:00Z');
    await platform.deps.db.models.ServiceUpstreamBinding.update({ pay_attempted_at: bought }, { where: { service_id: old } });
    const oldService = await platform.deps.db.models.Service.findByPk(old);
    await platform.deps.db.models.Invoice.update({ paid_at: bought, created_at: bought }, { where: { id: oldService?.invoice_id ?? 0 } });
    const res = await platform.api.get(`${base}/services/${old}`, { token });
    expect(res.body.data).toMatchObject({ cost_known: false, upstream_cost: null, margin: null, margin_percent: null, costs: [] });
    const list = await platform.api.get(`${base}/services`, { token, query: { user_id: client.id } });
    expect(list.body.data).toMatchObject({ total: 3, page: 1, page_size: 20 });
    expect(list.body.data.list.map((s: { service_id: number; cost_known: boolean }) => [s.service_id, s.cost_known])).toEqual([
      [old, false],
      [second.serviceId, true],
      [first.serviceId, true],
    ]);
    const summary = await platform.api.get(`${base}/services/summary`, { token, query: { user_id: client.id } });
    expect(summary.body.data).toMatchObject({ services: 3, services_cost_unknown: 1, cost_known: false, upstream_cost: null, margin: null });
    const known = await platform.api.get(`${base}/services/summary`, { token, query: { status: 'active', supplier_id: platform.supplierId, product_id: platform.productId, user_id: client.id } });
    expect(known.body.data.services).toBe(3);
  });

  it('reports per supplier and product with totals equal to the invoices, the refunds and what the upstream charged', async () => {
    const { from, to } = range();
    // Only money of this file's client exists besides free test services: the books are the whole database.
    const [books] = await platform.deps.db.read<{ revenue: string; refunds: string }>(
      `SELECT (SELECT COALESCE(sum(amount), 0)::numeric(14,2)::text FROM invoices
                WHERE type IN ('purchase', 'renew', 'traffic_package', 'upgrade') AND status IN ('paid', 'partially_refunded', 'refunded')) AS revenue,
              (SELECT COALESCE(sum(amount), 0)::numeric(14,2)::text FROM refunds WHERE status = 'succeeded') AS refunds`,
      [],
    );
    const costs = sumMoney((await costRows()).map((r) => r.amount ?? '0'));
    expect(formatMoney(costs)).toBe(upstreamCharged());

    // The service bought "before" was paid in 2025, outside the range: the range's cost is known.
    const summary = await platform.api.get(`${base}/report/summary`, { token, query: { group_by: 'supplier', period: 'day', from, to } });
    expect(summary.body.data).toMatchObject({
      from,
      to,
      revenue: books?.revenue,
      refunds: books?.refunds,
      upstream_cost: formatMoney(costs),
      margin: formatMoney(money(books?.revenue ?? '0').minus(books?.refunds ?? '0').minus(costs)),
      cost_known: true,
    });
    const old = await platform.api.get(`${base}/report/summary`, { token, query: { group_by: 'supplier', period: 'month', from: '2025-06-01', to: '2025-06-30' } });
    expect(old.body.data).toMatchObject({ revenue: '0.00', cost_known: false, upstream_cost: null, margin: null });
    // A range without a line: an empty first page (its size was once asked of itself, forever).
    for (const page of [1, 3]) {
      const empty = await platform.api.get(`${base}/report`, { token, query: { group_by: 'product', period: 'day', from: '2020-01-01', to: '2020-01-31', page } });
      expect(empty.body.data, `page ${page}`).toMatchObject({ list: [], total: 0 });
    }

    for (const group of ['supplier', 'product'] as const) {
      const report = await platform.api.get(`${base}/report`, { token, query: { group_by: group, period: 'month', from, to, page_size: 100 } });
      expect(report.body.code, report.body.message).toBe(0);
      const rows = report.body.data.list as Array<{ group_id: number | null; revenue: string; refunds: string; upstream_cost: string | null }>;
      expect(report.body.data.total).toBe(rows.length);
      expect(formatMoney(sumMoney(rows.map((r) => r.revenue)))).toBe(books?.revenue);
      expect(formatMoney(sumMoney(rows.map((r) => r.refunds)))).toBe(books?.refunds);
      expect(rows.map((r) => r.group_id)).toContain(group === 'supplier' ? platform.supplierId : platform.productId);
    }
  });

  it('puts today’s and this month’s margin on the dashboard', async () => {
    const res = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(res.body.code, res.body.message).toBe(0);
    const { today, monthStart } = shanghaiToday();
    const month = await platform.api.get(`${base}/report/summary`, { token, query: { group_by: 'product', period: 'month', from: monthStart, to: today } });
    const { from: _from, to: _to, ...figures } = month.body.data as Record<string, unknown>;
    expect(res.body.data.month.margin).toEqual(figures);
    expect(figures['cost_known']).toBe(true);
    expect(res.body.data.today.margin).toMatchObject({ currency: 'CNY' });
  });

  it('exposes revenue and upstream cost by supplier to Prometheus, read from the database at scrape time', async () => {
    const stop = watchSupplierEconomics(platform.deps);
    try {
      const text = await metricsRegistry.metrics();
      const costs = sumMoney((await costRows()).map((r) => r.amount ?? '0'));
      expect(text).toContain(`economics_upstream_cost_yuan{supplier="hk-cloud"} ${Number(formatMoney(costs))}`);
      expect(text).toMatch(/economics_revenue_yuan\{supplier="hk-cloud"\} \d/);
    } finally {
      stop();
    }
  });
});

describe('a cost without an answered amount', () => {
  it('is recorded once, as unknown (null, never zero), however often the payment is recorded again', async () => {
    const other = await registerClient(platform);
    const id = await createService(platform, { userId: other.id, productId: platform.productId, hostId: takeHost(platform) });
    const recordedBefore = (await costRows()).length;
    const once = await recordUpstreamPaid(platform.deps, provisioningWork(id), { billId: 990001, amount: null, via: 'paid', workflowId: `provision:${id}` });
    const again = await recordUpstreamPaid(platform.deps, provisioningWork(id), { billId: 990001, amount: '12.00', via: 'reconciled', workflowId: `provision:${id}` });
    expect([once.recorded, again.recorded]).toEqual([true, false]);
    const rows = (await costRows()).filter((r) => r.service_id === id);
    expect(rows).toEqual([expect.objectContaining({ kind: 'provision', amount: null, via: 'paid', upstream_invoice_id: '990001' })]);
    expect((await costRows()).length).toBe(recordedBefore + 1);
    const res = await platform.api.get(`${base}/services/${id}`, { token });
    expect(res.body.data).toMatchObject({ cost_known: false, upstream_cost: null, margin: null, costs: [{ amount: null, upstream_invoice_id: 990001 }] });
  });
});

describe('bad queries', () => {
  it('refuses bad report and list parameters with a Chinese 42200 and never a 5xx', async () => {
    const { from, to } = range();
    const cases: Array<Record<string, string | number>> = [
      { period: 'day', from, to },
      { group_by: 'user', period: 'day', from, to },
      { group_by: 'product', period: 'week', from, to },
      { group_by: 'product', period: 'day', from: to, to: from },
      { group_by: 'product', period: 'day', from: '2024-01-01', to: '2026-01-01' },
      { group_by: 'product', period: 'day', from: '2026-02-30', to },
      { group_by: 'product', period: 'day', from, to, page_size: 1000 },
      { group_by: 'product', period: 'day', from, to, constructor: 'x' },
    ];
    for (const query of cases) {
      const res = await platform.api.get(`${base}/report`, { token, query });
      expectError(res, 42200, 422);
      expect(res.body.message).toMatch(/[\u4e00-\u9fff]/);
    }
    expectError(await platform.api.get(`${base}/services`, { token, query: { status: 'gone' } }), 42200, 422);
    expectError(await platform.api.get(`${base}/services`, { token, query: { supplier_id: '-1' } }), 42200, 422);
    expectError(await platform.api.get(`${base}/services/summary`, { token, query: { page: 1 } }), 42200, 422);
    expectError(await platform.api.get(`${base}/services/999999`, { token }), 40400, 404);
  });
});
