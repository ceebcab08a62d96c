import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cancelStaleInvoices } from '../../../../domain/lifecycle/cancel-stale-invoices.js';
import type { ConfigOptionItem } from '../../../../lib/catalogue-contract.js';
import { formatMoney, money } from '../../../../lib/money.js';
import { formatDateTime } from '../../../../lib/time.js';
import { UPGRADE_WORKFLOW_TYPE, upgradeWorkflowId } from '../../../../workflows/upgrade/contract.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, balanceOf, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';
import { eventually } from '../../../helpers/wait.js';

let platform: ServicesPlatform;
let client: TestClient;
let other: TestClient;
let options: ConfigOptionItem[];

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  other = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
  const product = await platform.deps.db.models.Product.findByPk(platform.productId);
  options = (product?.config_options ?? []) as unknown as ConfigOptionItem[];
});
afterAll(() => platform?.close());
beforeEach(() => {
  platform.sandbox.control.clearFaults();
  platform.sandbox.control.setCredit('10000.00');
});

const base = '/api/v2/client/services';

/** The sub-option of an option of the imported product 101 (index 0 = its default). */
function sub(field: string, index: number) {
  const option = options.find((o) => o.field === field);
  const found = option?.sub[index];
  if (!option || !found) throw new Error(`product has no ${field}[${index}]`);
  return { option, sub: found, choice: { value: found.id, label: `${option.name}：${found.label}` } };
}

/**
 * The imported product 101 at 20 % markup: 59 × 1.2 = 70.80 base, one IP included by default
 * (15 × 1.2 = 18.00), so the default configuration costs 88.80 a month; CPU 2 cores +24.00,
 * 4 cores +72.00.
 */
const DEFAULT_PRICE = '88.80';

async function serviceWith(cpuIndex: number, price: string, extra: { hostId?: number; userId?: number; status?: 'active' | 'suspended'; billingPeriod?: string } = {}) {
  return createService(platform, {
    userId: extra.userId ?? client.id,
    productId: platform.productId,
    price,
    config: { cpu: sub('cpu', cpuIndex).choice },
    ...(extra.hostId === undefined ? {} : { hostId: extra.hostId }),
    ...(extra.status ? { status: extra.status } : {}),
    ...(extra.billingPeriod ? { billingPeriod: extra.billingPeriod } : {}),
  });
}

type Quote = Record<string, string> & { period: { days_left: number; days_in_period: number } };

/** The quote, then the invoice (same pricing function, same day). */
async function createUpgrade(serviceId: number, config: Record<string, number>) {
  const quoted = await platform.api.post(`${base}/${serviceId}/upgrade/quote`, { token: client.token, body: { config } });
  expect(quoted.body.code, quoted.body.message).toBe(0);
  const res = await platform.api.post(`${base}/${serviceId}/upgrade`, { token: client.token, body: { config } });
  expect(res.body.code, res.body.message).toBe(0);
  return { invoice: res.body.data as { id: number; invoice_no: string; amount: string; status: string; type: string }, quote: quoted.body.data as Quote };
}

async function payByBalance(invoiceId: number) {
  const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
  expect(res.body.code, res.body.message).toBe(0);
}

async function orderReaches(invoiceId: number, statuses: string[]) {
  return eventually(async () => {
    const row = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: invoiceId } });
    return row && statuses.includes(row.status) ? row : null;
  }, 400);
}

async function serviceRow(id: number) {
  const row = await platform.deps.db.models.Service.findByPk(id);
  if (!row) throw new Error('service gone');
  return row;
}

/** The exact prorated difference rounded once, half up, from the answered days. */
function expectedDifference(perPeriod: string, daysLeft: number, daysInPeriod: number): string {
  return formatMoney(money(perPeriod).times(daysLeft).dividedBy(daysInPeriod));
}

async function creditEntries(invoiceId: number) {
  return platform.deps.db.models.AccountTransaction.findAll({ where: { invoice_id: invoiceId, type: 'upgrade_credit' } });
}

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

describe('upgrades on the upstream', () => {
  it('charges the prorated difference, changes the host once, then the service’s configuration and locked price; the due date stays', async () => {
    const hostId = takeHost(platform);
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId });
    const dueBefore = formatDateTime((await serviceRow(id)).next_due_at);
    const balanceBefore = await balanceOf(platform, client);
    const { invoice, quote } = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id, memory: sub('memory', 1).sub.id });
    // 2 cores +24.00, 2 GB +18.00: 130.80 a month from now on.
    expect(quote).toMatchObject({ direction: 'upgrade', new_price: '130.80', old_price: DEFAULT_PRICE });
    expect(quote['difference']).toBe(expectedDifference('42.00', quote.period.days_left, quote.period.days_in_period));
    expect(invoice).toMatchObject({ type: 'upgrade', status: 'unpaid', amount: quote['difference'] });
    const listed = await platform.api.get(`${base}/${id}/upgrade`, { token: client.token });
    expect(listed.body.data.pending_invoice_no).toBe(invoice.invoice_no);
    // Nothing changes before the payment and the upstream's confirmation.
    expect((await serviceRow(id)).price).toBe(DEFAULT_PRICE);

    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(order).toMatchObject({ status: 'succeeded', kind: 'upgrade', upgrade_price: '130.80', price_before: DEFAULT_PRICE, credit_transaction_id: null });
    expect(platform.sandbox.control.ledger().upgrades[String(hostId)]).toBe(1);
    const cpuParam = sub('cpu', 1).option.parameter;
    expect(platform.sandbox.control.host(hostId)?.config[cpuParam]).toBe(String(sub('cpu', 1).sub.id));
    const service = await serviceRow(id);
    expect(service.price).toBe('130.80');
    expect(service.config).toMatchObject({ cpu: sub('cpu', 1).choice, memory: sub('memory', 1).choice });
    expect(formatDateTime(service.next_due_at)).toBe(dueBefore);
    expect(await balanceOf(platform, client)).toBe(formatMoney(money(balanceBefore).minus(invoice.amount)));
    expect((await platform.deps.db.models.Order.findOne({ where: { invoice_id: invoice.id } }))?.status).toBe('completed');
    // The next renewal is at the new locked price.
    const renewal = await platform.api.get(`${base}/${id}/renew`, { token: client.token });
    expect(renewal.body.code, renewal.body.message).toBe(0);
    expect(JSON.stringify(renewal.body.data)).toContain('"130.80"');
    const handle = platform.temporal.workflow.getHandle(upgradeWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ invoiceNo: invoice.invoice_no, outcome: 'succeeded' });
    await recordHistory(handle, UPGRADE_WORKFLOW_TYPE, 'upgraded-upstream');
    await expectBooksBalanced(platform);
  });

  it('credits a downgrade only after the upstream confirmed: refused first, awaiting an admin, then retried', async () => {
    const hostId = takeHost(platform);
    const fourCores = sub('cpu', 2);
    platform.sandbox.control.setHostConfig(hostId, { [fourCores.option.parameter]: String(fourCores.sub.id) });
    const id = await serviceWith(2, '160.80', { hostId });
    const balanceBefore = await balanceOf(platform, client);
    platform.sandbox.control.failNext(1, 'refused', { path: '/host/upgrade' });
    const { invoice, quote } = await createUpgrade(id, { cpu: sub('cpu', 0).sub.id });
    expect(quote).toMatchObject({ direction: 'downgrade', new_price: DEFAULT_PRICE, amount: '0.00' });
    expect(quote['difference']).toBe(`-${expectedDifference('72.00', quote.period.days_left, quote.period.days_in_period)}`);
    expect(quote['credit_to_balance']).toBe(String(quote['difference']).slice(1));
    // A downgrade's invoice is 0.00 and settled at once.
    expect(invoice).toMatchObject({ type: 'upgrade', amount: '0.00', status: 'paid' });

    const stopped = await orderReaches(invoice.id, ['awaiting_admin', 'succeeded']);
    expect(stopped.status).toBe('awaiting_admin');
    expect(stopped.failure_reason).toMatch(/\p{Script=Han}/u);
    // Not confirmed: no credit, no change.
    expect(await creditEntries(invoice.id)).toHaveLength(0);
    expect(await balanceOf(platform, client)).toBe(balanceBefore);
    expect((await serviceRow(id)).price).toBe('160.80');
    // One pending change per service: a new one is refused while this one waits.
    expectError(await platform.api.post(`${base}/${id}/upgrade`, { token: client.token, body: { config: { cpu: sub('cpu', 1).sub.id } } }), 40960, 409);

    const token = await platform.rootToken();
    const listed = await platform.api.get('/api/v2/admin/service-orders', { token, query: { kind: 'upgrade', service_id: id } });
    expect(listed.body.data.list).toEqual([expect.objectContaining({ invoice_id: invoice.id, status: 'awaiting_admin', kind: 'upgrade' })]);
    await eventually(async () => {
      const res = await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/retry`, { token, body: { reason: '上游已放开降级' } });
      return res.body.code === 0 ? res : null;
    });
    const done = await orderReaches(invoice.id, ['succeeded']);
    expect(done.runs).toBe(2);
    const credits = await creditEntries(invoice.id);
    expect(credits).toHaveLength(1);
    expect(credits[0]?.amount).toBe(quote['credit_to_balance']);
    expect(done.credit_transaction_id).toBe(credits[0]?.id);
    expect(await balanceOf(platform, client)).toBe(formatMoney(money(balanceBefore).plus(quote['credit_to_balance'] ?? '0')));
    expect((await serviceRow(id)).price).toBe(DEFAULT_PRICE);
    expect(platform.sandbox.control.ledger().upgrades[String(hostId)]).toBe(1);
    const handle = platform.temporal.workflow.getHandle(upgradeWorkflowId(invoice.invoice_no));
    await handle.result();
    await recordHistory(handle, UPGRADE_WORKFLOW_TYPE, 'downgrade-refused-retried');
    await expectBooksBalanced(platform);
  });

  it('an admin cancel of a refused upgrade refunds what it charged and changes nothing', async () => {
    const hostId = takeHost(platform);
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId });
    const balanceBefore = await balanceOf(platform, client);
    platform.sandbox.control.failNext(1, 'refused', { path: '/host/upgrade' });
    const { invoice } = await createUpgrade(id, { cpu: sub('cpu', 3).sub.id });
    await payByBalance(invoice.id);
    expect((await orderReaches(invoice.id, ['awaiting_admin', 'succeeded'])).status).toBe('awaiting_admin');
    const token = await platform.rootToken();
    await eventually(async () => {
      const res = await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/cancel`, { token, body: { reason: '上游不支持该配置' } });
      return res.body.code === 0 ? res : null;
    });
    const done = await orderReaches(invoice.id, ['cancelled']);
    const refund = await platform.deps.db.models.Refund.findByPk(done.refund_id ?? 0);
    expect(refund).toMatchObject({ invoice_id: invoice.id, amount: invoice.amount, refund_method: 'balance', status: 'succeeded' });
    expect(await balanceOf(platform, client)).toBe(balanceBefore);
    expect((await serviceRow(id)).price).toBe(DEFAULT_PRICE);
    expect(platform.sandbox.control.ledger().upgrades[String(hostId)]).toBeUndefined();
    const handle = platform.temporal.workflow.getHandle(upgradeWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ invoiceNo: invoice.invoice_no, outcome: 'cancelled' });
    await recordHistory(handle, UPGRADE_WORKFLOW_TYPE, 'refused-cancelled');
    // The change is released: another one may be made.
    const next = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    expect(next.invoice.id).not.toBe(invoice.id);
    await platform.api.post(`${base}/${id}/upgrade/cancel`, { token: client.token });
    await expectBooksBalanced(platform);
  });

  it('changes the host once when /host/upgrade commits and then times out: the retry finds the bill among the host’s bills', async () => {
    const hostId = takeHost(platform);
    const id = await serviceWith(0, DEFAULT_PRICE, { hostId });
    platform.sandbox.control.failNext(1, 'timeout', { path: '/host/upgrade', afterCommit: true });
    const { invoice } = await createUpgrade(id, { cpu: sub('cpu', 1).sub.id });
    await payByBalance(invoice.id);
    const done = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(done.status).toBe('succeeded');
    expect(platform.sandbox.control.ledger().upgrades[String(hostId)]).toBe(1);
    expect(platform.sandbox.control.ledger().pays[String(done.upstream_invoice_id)]).toBe(1);
    const steps = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: id, kind: 'upgrade' }, order: [['id', 'ASC']] });
    expect(steps.map((s) => s.message).join('\n')).toMatch(/沿用/);
    const handle = platform.temporal.workflow.getHandle(upgradeWorkflowId(invoice.invoice_no));
    await handle.result();
    await recordHistory(handle, UPGRADE_WORKFLOW_TYPE, 'ambiguous-upgrade-reconciled');
  });

  it('changes a service without an upstream binding locally', async () => {
    const id = await serviceWith(0, DEFAULT_PRICE);
    const { invoice } = await createUpgrade(id, { ip_num: 2 });
    await payByBalance(invoice.id);
    const done = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(done).toMatchObject({ status: 'succeeded', supplier_id: null });
    expect((await serviceRow(id)).config).toMatchObject({ ip_num: { value: 2 } });
    expect((await serviceRow(id)).price).toBe('106.80');
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
    const q = quoted.body.data as Quote;
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
