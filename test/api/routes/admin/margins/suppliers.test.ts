import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne } from '../../../../../db/sql.js';
import { shanghaiToday } from '../../../../../domain/dashboard/figures.js';
import { SANDBOX_CREDENTIALS } from '../../../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../../../sandbox/upstream-finance/server.js';
import { expectError } from '../../../../helpers/http.js';
import { createTestSupplier, createUser, daysFromNow, seedService } from '../../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../../../helpers/upstream-supplier.js';

/**
 * The margin report grouped by supplier (issue #38 "the margin report groups by supplier"), from
 * the kept figures (`margin_day_totals`): services sold from two suppliers and one local, the
 * figures per supplier equal to their invoices and cost rows, and a service that failed over from
 * supplier A to B counted, revenue and cost, under B, the supplier that delivered it.
 */
const base = '/api/v2/admin/economics/margins';

let platform: TestPlatform;
let sandboxA: UpstreamSandbox;
let sandboxB: UpstreamSandbox;
let token: string;
let supplierA: number;
let supplierB: number;
let userId: number;
let upstreamBill = 7000;
const services: Record<'atA' | 'atB' | 'movedToB' | 'local', number> = { atA: 0, atB: 0, movedToB: 0, local: 0 };

function range() {
  const day = 86_400_000;
  return { from: shanghaiToday(new Date(Date.now() - day)).today, to: shanghaiToday(new Date(Date.now() + day)).today };
}

/** A service as provisioning leaves it, its purchase paid `amount` now. */
async function sold(amount: string, supplierId: number | null): Promise<number> {
  const id = await seedService(platform, { userId, nextDueAt: daysFromNow(30), ...(supplierId ? { upstream: { supplierId, hostId: upstreamBill++ } } : {}) });
  await sqlOne(platform.deps, `UPDATE invoices SET amount = $2, balance_amount = $2, paid_at = now() WHERE id = (SELECT invoice_id FROM services WHERE id = $1) RETURNING id`, [id, amount]);
  return id;
}

/** The upstream cost of a service's purchase, as the pay step records it (its supplier's bill). */
async function costOf(serviceId: number, supplierId: number, amount: string): Promise<void> {
  await sqlOne(
    platform.deps,
    `INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via)
     SELECT s.id, s.invoice_id, $2, s.product_id, 'provision', $3, $4, 'paid' FROM services s WHERE s.id = $1 RETURNING id`,
    [serviceId, supplierId, upstreamBill++, amount],
  );
  await sqlOne(platform.deps, `UPDATE service_upstream_bindings SET upstream_paid_at = now() WHERE service_id = $1 RETURNING service_id`, [serviceId]);
}

type Row = { period: string; group_id: number | null; group_name: string; revenue: string; upstream_cost: string | null; margin: string | null; margin_percent: string | null; cost_known: boolean };

async function bySupplier(query: Record<string, string | number> = {}): Promise<Row[]> {
  const res = await platform.api.get(`${base}/report`, { token, query: { group_by: 'supplier', period: 'month', ...range(), page_size: 100, ...query } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.list as Row[];
}

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  ({ sandbox: sandboxA } = await startUpstreamForPlatform(platform));
  sandboxB = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  supplierA = (await createTestSupplier(platform, sandboxA.baseUrl, 'margin-a')).id;
  supplierB = (await createTestSupplier(platform, sandboxB.baseUrl, 'margin-b')).id;
  userId = (await createUser(platform)).id;
  services.atA = await sold('100.00', supplierA);
  await costOf(services.atA, supplierA, '61.50');
  services.atB = await sold('80.00', supplierB);
  await costOf(services.atB, supplierB, '70.25');
  services.local = await sold('30.00', null);
  // Paid, provisioning at A, not yet bought upstream.
  services.movedToB = await sold('120.00', supplierA);
});
afterAll(async () => {
  await sandboxA?.stop();
  await sandboxB?.stop();
  await platform?.close();
});

describe('the margin report by supplier', () => {
  it('has a row per supplier (and one for local products), each its services’ invoices less their upstream costs', async () => {
    const rows = await bySupplier();
    // The month may be one or two (the range spans three days): compare the sums per supplier.
    const per = (id: number | null) => rows.filter((r) => r.group_id === id);
    expect(per(supplierA).map((r) => r.group_name)).toContain('供应商 margin-a');
    expect(per(null).map((r) => r.group_name)).toContain('无供应商（本地商品）');
    const one = (id: number | null) => {
      const [row, ...more] = per(id);
      expect(more).toEqual([]);
      return row;
    };
    // A: 100.00 + 120.00 sold; 61.50 paid upstream; the 120.00 is not bought yet (its cost is not unknown: nothing was paid).
    expect(one(supplierA)).toMatchObject({ revenue: '220.00', upstream_cost: '61.50', margin: '158.50', cost_known: true });
    expect(one(supplierB)).toMatchObject({ revenue: '80.00', upstream_cost: '70.25', margin: '9.75', margin_percent: '12.19', cost_known: true });
    expect(one(null)).toMatchObject({ revenue: '30.00', upstream_cost: '0.00', margin: '30.00' });

    const summary = await platform.api.get(`${base}/report/summary`, { token, query: { group_by: 'supplier', period: 'month', ...range() } });
    expect(summary.body.data).toMatchObject({ revenue: '330.00', upstream_cost: '131.75', margin: '198.25' });
    expect((await bySupplier({ supplier_id: supplierB })).map((r) => r.group_id)).toEqual([supplierB]);
  });

  it('counts a service that failed over under the supplier that delivered it, its cost with it', async () => {
    // The move (issue #38): the binding and `services.supplier_id` name B; A kept an unpaid bill.
    await sqlOne(
      platform.deps,
      `UPDATE service_upstream_bindings SET supplier_id = $2, upstream_host_id = NULL, upstream_invoice_id = NULL, upstream_order_id = NULL WHERE service_id = $1 RETURNING service_id`,
      [services.movedToB, supplierB],
    );
    await sqlOne(platform.deps, `UPDATE services SET supplier_id = $2 WHERE id = $1 RETURNING id`, [services.movedToB, supplierB]);
    let rows = await bySupplier();
    expect(rows.find((r) => r.group_id === supplierA)).toMatchObject({ revenue: '100.00', upstream_cost: '61.50' });
    expect(rows.find((r) => r.group_id === supplierB)).toMatchObject({ revenue: '200.00', upstream_cost: '70.25' });

    // B delivers: its bill is the cost.
    await costOf(services.movedToB, supplierB, '99.99');
    rows = await bySupplier();
    expect(rows.find((r) => r.group_id === supplierA)).toMatchObject({ revenue: '100.00', upstream_cost: '61.50', margin: '38.50' });
    expect(rows.find((r) => r.group_id === supplierB)).toMatchObject({ revenue: '200.00', upstream_cost: '170.24', margin: '29.76', margin_percent: '14.88' });
    // The services list and its summary agree: the moved service is B's.
    const list = await platform.api.get(`${base}/services/summary`, { token, query: { supplier_id: supplierB } });
    expect(list.body.data).toMatchObject({ services: 2, revenue: '200.00', upstream_cost: '170.24' });
    const summary = await platform.api.get(`${base}/report/summary`, { token, query: { group_by: 'supplier', period: 'day', ...range() } });
    expect(summary.body.data).toMatchObject({ revenue: '330.00', upstream_cost: '231.74', margin: '98.26' });
  });

  it('refuses another grouping in Chinese', async () => {
    const res = await platform.api.get(`${base}/report`, { token, query: { group_by: 'binding', period: 'month', ...range() } });
    expectError(res, 42200, 422);
    expect(res.body.message).toMatch(/\p{Script=Han}/u);
  });
});
