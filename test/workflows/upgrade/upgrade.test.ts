import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigOptionItem } from '../../../lib/catalogue-contract.js';
import { formatMoney, money } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { UPGRADE_WORKFLOW_TYPE, upgradeWorkflowId } from '../../../workflows/upgrade/contract.js';
import { adjustBalance, balanceOf, expectBooksBalanced, registerClient, type TestClient } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { type ServicesPlatform, startServicesPlatform, takeHost } from '../../helpers/services.js';
import { DEFAULT_PRICE, expectedDifference, productOptions, upgradeCalls } from '../../helpers/upgrades.js';
import { eventually } from '../../helpers/wait.js';

/** The upgrade workflow, started by paying an upgrade invoice of the client route, to its outcome and its recorded history. */
let platform: ServicesPlatform;
let client: TestClient;
let options: ConfigOptionItem[];
const { sub, serviceWith, createUpgrade, payByBalance, orderReaches, serviceRow, creditEntries } = upgradeCalls(() => ({ platform, client, options }));

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
  options = await productOptions(platform);
});
afterAll(() => platform?.close());
beforeEach(() => {
  platform.sandbox.control.clearFaults();
  platform.sandbox.control.setCredit('10000.00');
});

const base = '/api/v2/client/services';

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
