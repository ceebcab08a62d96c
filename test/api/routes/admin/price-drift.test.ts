import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../../db/sql.js';
import { checkPriceDrift } from '../../../../domain/economics/price-drift.js';
import { adjustBalance, registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { serviceReaches } from '../../../helpers/provisioning.js';
import { eventually } from '../../../helpers/wait.js';
import { seedService } from '../../../helpers/lifecycle.js';
import { startServicesPlatform, type ServicesPlatform } from '../../../helpers/services.js';

const base = '/api/v2/admin/economics/price-drift';
const HELD = '该商品上游成本已高于售价，暂停销售，请等待管理员调整价格';

let platform: ServicesPlatform;
let token: string;
let client: TestClient;
/** A purchase invoice created before the hold: it stays payable. */
let unpaidInvoiceId: number;

type Finding = {
  id: number;
  kind: string;
  product_id: number;
  service_id: number | null;
  billing_period: string;
  option_key: string;
  old_upstream_price: string | null;
  new_upstream_price: string;
  our_price: string;
  margin_percent: string | null;
  below_cost: boolean;
  held: boolean;
  state: string;
};

async function setUpstreamPrice(pid: number, cycles: Record<string, string>): Promise<void> {
  const response = await fetch(`${platform.sandbox.baseUrl}/__control/prices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pid, cycles }),
  });
  expect(response.status).toBe(200);
}

async function findings(query: Record<string, string | number> = {}): Promise<Finding[]> {
  const res = await platform.api.get(base, { token, query: { product_id: platform.productId, page_size: 100, ...query } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.list as Finding[];
}

async function setSetting(key: string, value: unknown): Promise<void> {
  const res = await platform.api.post('/api/v2/admin/settings', { token, body: { values: { [key]: value } } });
  expect(res.body.code, res.body.message).toBe(0);
}

function quote(period = 'monthly', as?: TestClient) {
  return platform.api.post(`/api/v2/site/products/${platform.productId}/quote`, { ...(as ? { token: as.token } : {}), body: { billing_period: period } });
}

beforeAll(async () => {
  platform = await startServicesPlatform();
  token = await platform.rootToken();
  client = await registerClient(platform);
});

afterAll(async () => {
  await platform?.close();
});

describe('upstream price drift (issue #29 §2)', () => {
  it('finds nothing while the import markup (20 %) keeps every margin above the 10 % floor', async () => {
    const summary = await checkPriceDrift(platform.deps);
    expect(summary.failed).toEqual([]);
    expect(summary.products).toBe(1);
    expect(summary.points).toBeGreaterThan(10);
    expect(summary.new_findings).toBe(0);
    expect(await findings()).toEqual([]);
    const observed = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM upstream_price_observations WHERE product_id = $1', [platform.productId]);
    expect(observed?.n).toBe(summary.points);
  });

  it('flags a price rise once, with old and new upstream price, our price and the margin, however many runs see it', async () => {
    // An anonymous quote is cached until the catalogue changes: the hold later must still reach it.
    expect((await quote()).body.code).toBe(0);
    await setUpstreamPrice(101, { monthly: '70.00' });
    const first = await checkPriceDrift(platform.deps);
    expect(first.new_findings).toBeGreaterThan(0);
    const second = await checkPriceDrift(platform.deps);
    expect(second.new_findings).toBe(0);
    const list = await findings();
    expect(list).toHaveLength(first.new_findings);
    expect(list.every((f) => f.billing_period === 'monthly' && f.kind === 'price' && f.state === 'open')).toBe(true);
    const baseFinding = list.find((f) => f.option_key === 'base');
    // Our monthly default: 70.80 base + one IP at 18.00; the upstream's now 70.00 + 15.00.
    expect(baseFinding).toMatchObject({ old_upstream_price: '74.00', new_upstream_price: '85.00', our_price: '88.80', margin_percent: '4.28', below_cost: false, held: false });
    const rows = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM upstream_price_findings WHERE product_id = $1', [platform.productId]);
    expect(rows?.n).toBe(first.new_findings);
    // Above cost: still quoted and sold even with the hold on.
    await setSetting('economics.hold_below_cost', true);
    expect((await quote()).body.code).toBe(0);
    const invoice = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: platform.productId, billing_period: 'monthly' } });
    expect(invoice.body.code, invoice.body.message).toBe(0);
    unpaidInvoiceId = invoice.body.data.id as number;
  });

  it('with the hold on, refuses the quote and a new purchase of a product below its upstream cost, in Chinese', async () => {
    await setUpstreamPrice(101, { monthly: '80.00', annually: '800.00' });
    const run = await checkPriceDrift(platform.deps);
    expect(run.new_findings).toBeGreaterThan(0);
    const open = await findings({ state: 'open' });
    const baseFinding = open.find((f) => f.option_key === 'base' && f.billing_period === 'monthly');
    expect(baseFinding).toMatchObject({ old_upstream_price: '85.00', new_upstream_price: '95.00', our_price: '88.80', margin_percent: '-6.98', below_cost: true, held: true });
    // The findings of the earlier change were superseded by this one.
    expect((await findings({ state: 'resolved' })).some((f) => f.new_upstream_price === '85.00')).toBe(true);

    for (const res of [await quote(), await quote('quarterly'), await quote('monthly', client)]) {
      expectError(res, 40904, 409);
      expect(res.body.message).toBe(HELD);
    }
    const invoice = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: platform.productId, billing_period: 'monthly' } });
    expectError(invoice, 40904, 409);
    expect(invoice.body.message).toBe(HELD);

    const summary = await platform.api.get(`${base}/summary`, { token, query: { product_id: platform.productId } });
    expect(summary.body.data).toMatchObject({ products_held: 1, hold_below_cost: true, margin_floor_percent: 10 });
    expect(summary.body.data.below_cost_open).toBeGreaterThan(0);

    // Hold off: the same product sells again, still flagged.
    await setSetting('economics.hold_below_cost', false);
    expect((await quote()).body.code).toBe(0);
    await setSetting('economics.hold_below_cost', true);
    expectError(await quote(), 40904, 409);
  });

  it('flags a renewal that now runs at a loss and never refuses it', async () => {
    const serviceId = await seedService(platform, { userId: client.id, nextDueAt: new Date(Date.now() + 5 * 86_400_000), price: '88.80' });
    await sqlRows(platform.deps, `UPDATE services SET product_id = $2, config = '{}'::jsonb WHERE id = $1 RETURNING id`, [serviceId, platform.productId]);
    const run = await checkPriceDrift(platform.deps);
    expect(run.new_findings).toBe(1);
    const renewals = await findings({ kind: 'renewal' });
    expect(renewals).toEqual([
      expect.objectContaining({ service_id: serviceId, option_key: `service:${serviceId}`, our_price: '88.80', new_upstream_price: '95.00', below_cost: true, held: false, state: 'open' }),
    ]);
    expect((await checkPriceDrift(platform.deps)).new_findings).toBe(0);
    const renew = await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(renew.body.code, renew.body.message).toBe(0);
    expect(renew.body.data.amount).toBe('88.80');
  });

  it('acknowledges a finding once; a resolved one is a conflict; bad filters are refused in Chinese', async () => {
    const [first] = await findings({ state: 'open', kind: 'price' });
    expect(first).toBeDefined();
    const ack = await platform.api.post(`${base}/${first?.id}/acknowledge`, { token });
    expect(ack.body.data).toMatchObject({ id: first?.id, state: 'acknowledged', state_label: '已确认' });
    expect((await platform.api.post(`${base}/${first?.id}/acknowledge`, { token })).body.data.state).toBe('acknowledged');
    const [resolved] = await findings({ state: 'resolved' });
    expectError(await platform.api.post(`${base}/${resolved?.id}/acknowledge`, { token }), 40900, 409);
    expectError(await platform.api.post(`${base}/999999999/acknowledge`, { token }), 40400, 404);
    const bad = await platform.api.get(base, { token, query: { state: 'closed' } });
    expectError(bad, 42200, 422);
    expect(JSON.stringify(bad.body.data)).toMatch(/\p{Script=Han}/u);
    // Acknowledging does not lift the hold.
    expectError(await quote(), 40904, 409);
  });

  it('re-prices the product by its import rule in one admin action: the hold ends, the audit row stays', async () => {
    const res = await platform.api.post(`/api/v2/admin/products/${platform.productId}/reprice`, { token });
    expect(res.body.code, res.body.message).toBe(0);
    expect(res.body.data).toMatchObject({ price_rule: { type: 'percent', value: '20' }, before: { monthly: '70.80', annually: '718.80' } });
    expect(res.body.data.pricing).toMatchObject({ monthly: '96.00', annually: '960.00' });
    expect(res.body.data.resolved).toBeGreaterThan(0);
    const ok = await quote();
    expect(ok.body.code, ok.body.message).toBe(0);
    expect(ok.body.data.total_amount).toBe('114.00'); // 96.00 + one IP at 18.00
    const unresolved = (await findings()).filter((f) => f.state !== 'resolved');
    // Only the renewal stays flagged: the service keeps its locked-in price.
    expect(unresolved.map((f) => f.kind)).toEqual(['renewal']);
    const audit = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: 'product', entity_id: platform.productId } });
    expect(audit.body.data.list[0]).toMatchObject({ action: 'reprice', action_label: '按加价规则重新定价' });
    const adminAudit = await sqlOne<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM admin_audit_logs WHERE source = 'request' AND route LIKE '%/reprice'`, []);
    expect(adminAudit?.n).toBeGreaterThanOrEqual(1);
    // Once repaired, the next runs find nothing new for the product's prices.
    expect((await checkPriceDrift(platform.deps)).new_findings).toBe(0);
  });

  it('keeps an invoice made before the hold payable while the product is held', async () => {
    await setUpstreamPrice(101, { monthly: '120.00' });
    await checkPriceDrift(platform.deps);
    expectError(await quote(), 40904, 409);
    await adjustBalance(platform, client.id, '200.00');
    const paid = await platform.api.post(`/api/v2/client/invoices/${unpaidInvoiceId}/pay/balance`, { token: client.token });
    expect(paid.body.code, paid.body.message).toBe(0);
    const row = await sqlOne<{ status: string }>(platform.deps, 'SELECT status FROM invoices WHERE id = $1', [unpaidInvoiceId]);
    expect(row?.status).toBe('paid');

    // The cost is checked again at the upstream purchase: the bill is above the service's price,
    // so nothing is paid upstream and the provisioning waits for an admin, who decides once.
    const service = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: unpaidInvoiceId } }));
    const parked = await eventually(async () => {
      const s = await platform.deps.db.models.Service.findByPk(service.id);
      return s?.provisioning_stage === 'awaiting_admin' ? s : null;
    }, 1200);
    expect(parked.failure_code).toBe('below_upstream_cost');
    expect(parked.failure_reason).toMatch(/高于本服务售价 88\.80 元/);
    const binding = await sqlOne<{ upstream_invoice_id: string }>(platform.deps, 'SELECT upstream_invoice_id::text FROM service_upstream_bindings WHERE service_id = $1', [service.id]);
    expect(binding?.upstream_invoice_id).toBeTruthy();
    expect(platform.sandbox.control.ledger().pays[String(binding?.upstream_invoice_id)]).toBeUndefined();
    const retried = await platform.api.post(`/api/v2/admin/provisioning/${service.id}/retry`, { token, body: { reason: '按此成本购买' } });
    expect(retried.body.code, retried.body.message).toBe(0);
    expect((await serviceReaches(platform, service.id, ['active'])).status).toBe('active');
    expect(platform.sandbox.control.ledger().pays[String(binding?.upstream_invoice_id)]).toBe(1);
  });

  it('declares the check as an hourly, manually triggerable task', async () => {
    const res = await platform.api.get('/api/v2/admin/schedules/overview', { token });
    expect(JSON.stringify(res.body.data)).toContain('upstream.price-drift');
  });
});
