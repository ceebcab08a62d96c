import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cancelStaleInvoices } from '../../../../domain/lifecycle/cancel-stale-invoices.js';
import type { ConfigOptionItem } from '../../../../lib/catalogue-contract.js';
import { formatMoney, money } from '../../../../lib/money.js';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';
import { DEFAULT_PRICE, expectedDifference, productOptions, upgradeCalls, type UpgradeQuote } from '../../../helpers/upgrades.js';

let platform: ServicesPlatform;
let client: TestClient;
let other: TestClient;
let options: ConfigOptionItem[];

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  other = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
  options = await productOptions(platform);
});
afterAll(() => platform?.close());
beforeEach(() => {
  platform.sandbox.control.clearFaults();
  platform.sandbox.control.setCredit('10000.00');
});

const base = '/api/v2/client/services';

const { sub, serviceWith, createUpgrade, payByBalance, orderReaches, serviceRow } = upgradeCalls(() => ({ platform, client, options }));

describe('upgrade options and quotes', () => {
  it('lists the other values of every changeable option with the new price, the difference and the prorated amount', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE);
    const res = await platform.api.get(`${base}/${id}/upgrade`, { token: client.token });
    expect(res.body.code, res.body.message).toBe(0);
    const data = res.body.data;
    expect(data).toMatchObject({ service_id: id, billing_period: 'monthly', locked_price: DEFAULT_PRICE, pending_invoice_no: null });
    expect(data.period.days_left).toBeGreaterThan(0);
    // Location and system are not upgrades.
    expect(data.options.map((o: { field: string }) => o.field)).not.toContain('area');
    expect(data.options.map((o: { field: string }) => o.field)).not.toContain('os');
    const cpu = data.options.find((o: { field: string }) => o.field === 'cpu');
    expect(cpu).toMatchObject({ kind: 'choice', current_value: sub('cpu', 0).sub.id, current_label: sub('cpu', 0).sub.label });
    type Choice = { field: string; value: number };
    const choices = (field: string) => data.choices.filter((c: Choice) => c.field === field);
    expect(choices('cpu')[0]).toMatchObject({ value: sub('cpu', 0).sub.id, current: true, new_price: null });
    const twoCores = choices('cpu').find((c: Choice) => c.value === sub('cpu', 1).sub.id);
    expect(twoCores).toEqual({
      field: 'cpu',
      value: sub('cpu', 1).sub.id,
      label: sub('cpu', 1).sub.label,
      current: false,
      new_price: '112.80',
      price_difference: '24.00',
      prorated_amount: expectedDifference('24.00', data.period.days_left, data.period.days_in_period),
    });
    const ipNum = data.options.find((o: { field: string }) => o.field === 'ip_num');
    expect(ipNum).toMatchObject({ kind: 'quantity', min: 1, max: 8 });
    expect(choices('ip_num').find((c: Choice) => c.value === 3)).toMatchObject({ new_price: '124.80', price_difference: '36.00' });
  });

  it('quotes a change without writing anything; the credit is from the locked price, charge − credit is the difference', async () => {
    // Locked at an older, lower price: the credit is from it, not from the catalogue.
    const id = await serviceWith(0, '80.00');
    const invoicesBefore = await platform.deps.db.models.Invoice.count();
    const res = await platform.api.post(`${base}/${id}/upgrade/quote`, { token: client.token, body: { config: { cpu: sub('cpu', 2).sub.id } } });
    expect(res.body.code, res.body.message).toBe(0);
    const q = res.body.data;
    const { days_left: left, days_in_period: days } = q.period;
    expect(q).toMatchObject({ direction: 'upgrade', old_price: '80.00', new_price: '160.80', currency: 'CNY' });
    expect(q.changes).toEqual([{ field: 'cpu', name: sub('cpu', 2).option.name, from: sub('cpu', 0).sub.label, to: sub('cpu', 2).sub.label }]);
    expect(q.credit).toBe(expectedDifference('80.00', left, days));
    expect(q.difference).toBe(expectedDifference('80.80', left, days));
    expect(money(q.charge).minus(q.credit).toFixed(2)).toBe(q.difference);
    expect(q.amount).toBe(q.difference);
    expect(q.credit_to_balance).toBe('0.00');
    expect(await platform.deps.db.models.Invoice.count()).toBe(invoicesBefore);
  });

  it('refuses bad changes with Chinese field errors and changes nothing', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE);
    const quote = (body: unknown) => platform.api.post(`${base}/${id}/upgrade/quote`, { token: client.token, body });
    const fields = async (body: unknown) => {
      const res = await quote(body);
      expectError(res, 42200, 422);
      return Object.keys(res.body.data.errors);
    };
    expect(await fields({ config: { gpu: 1 } })).toEqual(['config.gpu']);
    expect(await fields({ config: { area: sub('area', 1).sub.id } })).toEqual(['config.area']);
    expect(await fields({ config: { os: sub('os', 1).sub.id } })).toEqual(['config.os']);
    expect(await fields({ config: { cpu: 999_999 } })).toEqual(['config.cpu']);
    expect(await fields({ config: { ip_num: 99 } })).toEqual(['config.ip_num']);
    expect(await fields({ config: { cpu: sub('cpu', 0).sub.id } })).toEqual(['config']);
    expect(await fields({ config: {} })).toEqual(['config']);
    expect(await fields({ config: { cpu: 'x' } })).toContain('config.cpu');
    expect(await fields({ config: { cpu: -1 } })).toContain('config.cpu');
    expect(await fields({})).toEqual(['config']);
    expect(await fields({ config: [1] })).toContain('config');
    expectError(await platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body: { config: { gpu: 1 } } }), 42200, 422);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id } })).toBe(0);
  });

  it('answers 40400 for another user’s service on every route, and 40961 for one that cannot change', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE, { userId: other.id });
    const body = { config: { cpu: sub('cpu', 1).sub.id } };
    expectError(await platform.api.get(`${base}/${id}/upgrade`, { token: client.token }), 40400, 404);
    expectError(await platform.api.post(`${base}/${id}/upgrade/quote`, { token: client.token, body }), 40400, 404);
    expectError(await platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body }), 40400, 404);
    expectError(await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token }), 40400, 404);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id } })).toBe(0);
    const suspended = await serviceWith(0, DEFAULT_PRICE, { status: 'suspended' });
    expectError(await platform.api.get(`${base}/${suspended}/upgrade`, { token: client.token }), 40961, 409);
    const onetime = await serviceWith(0, DEFAULT_PRICE, { billingPeriod: 'onetime' });
    expectError(await platform.api.post(`${base}/${onetime}/upgrade`, { token: client.token, body }), 40961, 409);
    expectError(await platform.api.post(`${base}/${suspended}/upgrade/cancel`, { token: client.token }), 40400, 404);
  });
});

describe('discounts on an upgrade', () => {
  it('takes an upgrade coupon through the one pricing entry: quote and invoice agree, the use is reserved, then final once paid', async () => {
    const token = await platform.rootToken();
    const couponCode = `UPG${Date.now().toString(36).toUpperCase()}`;
    const made = await platform.api.post('/api/v2/admin/coupons', { token, body: { code: couponCode, name: '升级立减', kind: 'fixed', value: '5.00', scenes: ['upgrade'], total_uses: 1 } });
    expect(made.body.code, made.body.message).toBe(0);
    const purchaseOnly = `PUR${Date.now().toString(36).toUpperCase()}`;
    expect((await platform.api.post('/api/v2/admin/coupons', { token, body: { code: purchaseOnly, name: '新购券', kind: 'fixed', value: '5.00' } })).body.code).toBe(0);

    const id = await serviceWith(0, DEFAULT_PRICE, { hostId: takeHost(platform) });
    const config = { cpu: sub('cpu', 2).sub.id };
    // A coupon not usable on upgrades is refused, naming the field; nothing is written.
    expectError(await platform.api.post(`${base}/${id}/upgrade/quote`, { token: client.token, body: { config, coupon_code: purchaseOnly } }), 42200, 422);
    const quoted = await platform.api.post(`${base}/${id}/upgrade/quote`, { token: client.token, body: { config, coupon_code: couponCode } });
    expect(quoted.body.code, quoted.body.message).toBe(0);
    const q = quoted.body.data as UpgradeQuote;
    expect(q['discount_amount']).toBe('5.00');
    expect(q['amount']).toBe(formatMoney(money(q['difference'] ?? '').minus('5.00')));

    const res = await platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body: { config, coupon_code: couponCode } });
    expect(res.body.code, res.body.message).toBe(0);
    const invoice = res.body.data as { id: number; amount: string; items: { amount: string }[] };
    expect(invoice.amount).toBe(q['amount']);
    expect(invoice.items.map((i) => i.amount)).toEqual([q['difference'], '-5.00']);
    const [use] = await platform.deps.db.read<{ status: string }>('SELECT status FROM coupon_uses WHERE invoice_id = $1', [invoice.id]);
    expect(use?.status).toBe('reserved');
    // Its only use is taken: another service's upgrade cannot have it.
    const second = await serviceWith(0, DEFAULT_PRICE, { hostId: takeHost(platform) });
    expect((await platform.api.post(`${base}/${second}/upgrade`, { token: client.token, body: { config, coupon_code: couponCode } })).body.code).not.toBe(0);

    await payByBalance(invoice.id);
    const [final] = await platform.deps.db.read<{ status: string }>('SELECT status FROM coupon_uses WHERE invoice_id = $1', [invoice.id]);
    expect(final?.status).toBe('final');
    await orderReaches(invoice.id, ['succeeded']);
    await expectBooksBalanced(platform);
  });
});

describe('one pending change per service', () => {
  it('lets one of concurrent requests win; the user can cancel the unpaid one, which releases the service', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId: takeHost(platform) });
    const answers = await Promise.all(
      [1, 2, 3, 1, 2, 3].map((index) => platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body: { config: { cpu: sub('cpu', index).sub.id } } })),
    );
    const won = answers.filter((r) => r.body.code === 0);
    const wonId = (won[0]?.body.data as { id: number } | undefined)?.id;
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((r) => r.body.code !== 0)) expectError(lost, 40960, 409);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id, type: 'upgrade' } })).toBe(1);
    const cancelled = await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token });
    expect(cancelled.body).toMatchObject({ code: 0, data: { id: wonId, status: 'cancelled' } });
    expectError(await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/client/invoices/${wonId}/pay/balance`, { token: client.token }), 40912, 409);
    await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token });
  });

  it('refuses a change while a renewal is unpaid', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId: takeHost(platform) });
    const renewal = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(renewal.body.code, renewal.body.message).toBe(0);
    expectError(await platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body: { config: { cpu: sub('cpu', 1).sub.id } } }), 40960, 409);
  });

  it('parks a paid upgrade for an admin when a renewal moved the due date after the quote', async () => {
    const hostId = takeHost(platform);
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId });
    const { invoice } = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    const renewal = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(renewal.body.code, renewal.body.message).toBe(0);
    await payByBalance(renewal.body.data.id as number);
    await orderReaches(renewal.body.data.id as number, ['succeeded']);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['awaiting_admin', 'succeeded']);
    expect(order).toMatchObject({ status: 'awaiting_admin', failure_code: 'period_changed' });
    expect(platform.sandbox.control.ledger().upgrades[String(hostId)]).toBeUndefined();
    expect((await serviceRow(id)).price).toBe(DEFAULT_PRICE);
  });

  it('expires an unpaid upgrade after its quote’s day with the stale-invoice job, refusing payment meanwhile, and releases the service', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId: takeHost(platform) });
    const { invoice } = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    // The quote was made yesterday (Shanghai).
    await platform.deps.db.sequelize.query(
      `UPDATE invoices SET created_at = created_at - interval '1 day', payload = jsonb_set(payload, '{quoted_on}', to_jsonb(to_char((now() AT TIME ZONE 'Asia/Shanghai') - interval '1 day', 'YYYY-MM-DD'))) WHERE id = :id`,
      { replacements: { id: invoice.id } },
    );
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token }), 40962, 409);
    const summary = await cancelStaleInvoices(platform.deps);
    expect(summary.upgrade_cancelled).toBeGreaterThanOrEqual(1);
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status).toBe('cancelled');
    const listed = await platform.api.get(`${base}/${id}/upgrade`, { token: client.token });
    expect(listed.body.data.pending_invoice_no).toBeNull();
    const next = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    expect(next.invoice.status).toBe('unpaid');
    await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token });
  });
});
