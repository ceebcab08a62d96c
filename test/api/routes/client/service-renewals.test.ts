import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemAudit } from '../../../../domain/billing/audit.js';
import { cancelInvoice } from '../../../../domain/billing/invoices/cancel-invoice.js';
import { createRenewalInvoice } from '../../../../domain/services/renewals/create-renewal-invoice.js';
import { formatDateTime, parseDateTime } from '../../../../lib/time.js';
import { RENEW_WORKFLOW_TYPE, renewWorkflowId } from '../../../../workflows/renewal/contract.js';
import { SearchAttr } from '../../../../workflows/search-attributes.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, balanceOf, buyerPays, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';
import { stepsBetween } from '../../../helpers/steps.js';
import { eventually } from '../../../helpers/wait.js';

let platform: ServicesPlatform;
let client: TestClient;

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
});
afterAll(() => platform?.close());
beforeEach(() => {
  platform.sandbox.control.clearFaults();
  platform.sandbox.control.setCredit('10000.00');
});

const base = '/api/v2/client/services';
const due = (text: string) => parseDateTime(text) as Date;

async function renew(serviceId: number, billingPeriod = 'monthly') {
  const res = await platform.api.post(`${base}/${serviceId}/renew`, { token: client.token, body: { billing_period: billingPeriod } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as { id: number; invoice_no: string; amount: string; type: string; service_id: number };
}

async function payByBalance(invoiceId: number) {
  const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
  expect(res.body.code, res.body.message).toBe(0);
}

/** The order of an invoice once it reached one of the statuses. */
async function orderReaches(invoiceId: number, statuses: string[], attempts = 400) {
  return eventually(async () => {
    const row = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: invoiceId } });
    return row && statuses.includes(row.status) ? row : null;
  }, attempts);
}

async function dueOf(serviceId: number) {
  return formatDateTime((await platform.deps.db.models.Service.findByPk(serviceId))?.next_due_at ?? null);
}

describe('renewal preview', () => {
  it('offers the service’s own period at its locked price and other periods at the catalogue price of its configuration', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, price: '66.00', nextDueAt: due('2026-01-31 10:00:00') });
    const res = await platform.api.get(`${base}/${id}/renew`, { token: client.token });
    expect(res.body.data).toMatchObject({ service_id: id, renewable: true, reason: null, billing_period: 'monthly', next_due_at: '2026-01-31 10:00:00', unpaid_invoice: null });
    const options = res.body.data.options as Array<{ billing_period: string; amount: string; months: number; is_current: boolean; next_due_at: string }>;
    expect(options[0]).toEqual({ billing_period: 'monthly', label: '月付', months: 1, amount: '66.00', currency: 'CNY', is_current: true, next_due_at: '2026-02-28 10:00:00' });
    expect(options.map((o) => o.billing_period)).toEqual(['monthly', 'quarterly', 'semiannually', 'annually']);
    const quarterly = options.find((o) => o.billing_period === 'quarterly');
    const quote = await platform.api.post(`/api/v2/site/products/${platform.productId}/quote`, { body: { billing_period: 'quarterly' } });
    expect(quarterly).toMatchObject({ amount: quote.body.data.total_amount, is_current: false, months: 3, next_due_at: '2026-04-30 10:00:00' });
  });

  it('says why a one-time or ended service cannot renew, and refuses the invoice', async () => {
    const onetime = await createService(platform, { userId: client.id, productId: platform.productId, billingPeriod: 'onetime', nextDueAt: null });
    const preview = await platform.api.get(`${base}/${onetime}/renew`, { token: client.token });
    expect(preview.body.data).toMatchObject({ renewable: false, reason: '一次性付费的服务无需续费', options: [] });
    expectError(await platform.api.post(`${base}/${onetime}/renew`, { token: client.token, body: { billing_period: 'monthly' } }), 40942, 409);
    const ended = await createService(platform, { userId: client.id, productId: platform.productId, status: 'terminated' });
    expect((await platform.api.get(`${base}/${ended}/renew`, { token: client.token })).body.data).toMatchObject({ renewable: false, reason: '服务已终止，不可续费' });
    expectError(await platform.api.post(`${base}/${ended}/renew`, { token: client.token, body: { billing_period: 'monthly' } }), 40942, 409);
    const live = await createService(platform, { userId: client.id, productId: platform.productId });
    const bad = await platform.api.post(`${base}/${live}/renew`, { token: client.token, body: { billing_period: 'onetime' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['billing_period']);
    expectError(await platform.api.post(`${base}/${live}/renew`, { token: client.token, body: { billing_period: 'biennially' } }), 42200, 422);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: [onetime, ended, live] } })).toBe(0);
  });
});

describe('renewal invoices', () => {
  it('keeps one unpaid renewal per service: the same period answers it again, another period is refused', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, price: '66.00' });
    const first = await renew(id);
    expect(first).toMatchObject({ type: 'renew', status: 'unpaid', amount: '66.00', service_id: id, order: { type: 'renewal', status: 'pending' } });
    const again = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(again.body).toMatchObject({ code: 0, message: '已有相同周期的未支付续费账单', data: { id: first.id } });
    const other = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'annually' } });
    expectError(other, 40940, 409);
    expect(other.body.data).toMatchObject({ invoice_id: first.id, billing_period: 'monthly' });
    const invoice = await platform.deps.db.models.Invoice.findByPk(first.id);
    expect(invoice?.payload).toMatchObject({ service_id: id, billing_period: 'monthly', months: 1, source: 'client' });
    expect((await platform.api.get(`${base}/${id}/renew`, { token: client.token })).body.data.unpaid_invoice).toMatchObject({ id: first.id, billing_period: 'monthly' });
  });

  it('is idempotent for the scheduler per due date, also after the user cancelled that invoice, and takes the user’s unpaid one first', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId });
    const audit = systemAudit('renewal-job');
    const made = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(made.created).toBe(true);
    expect(made.invoice.payload['schedule_key']).toMatch(new RegExp(`^renewal:${id}:`));
    const repeat = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(repeat).toMatchObject({ created: false, invoice: { id: made.invoice.id } });
    await cancelInvoice(platform.deps, { userId: client.id, invoiceId: made.invoice.id });
    const afterCancel = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(afterCancel).toMatchObject({ created: false, invoice: { id: made.invoice.id, status: 'cancelled' } });
    const byClient = await renew(id, 'annually');
    expect(byClient.id).not.toBe(made.invoice.id);
    const schedulerSeesClient = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(schedulerSeesClient).toMatchObject({ created: false, invoice: { id: byClient.id } });
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id, type: 'renew' } })).toBe(2);
  });
});

describe('renewal fulfilment', () => {
  it('renews upstream exactly once after a balance payment and moves the due date by the period', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, price: '66.00', nextDueAt: due('2026-01-31 10:00:00') });
    const upstreamDueBefore = platform.sandbox.control.host(hostId)?.nextDueDate ?? 0;
    const balanceBefore = await balanceOf(platform, client);
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded']);
    expect(order).toMatchObject({ kind: 'renew', supplier_id: platform.supplierId, upstream_host_id: hostId, billing_period: 'monthly', months: 1 });
    expect(order.upstream_invoice_id).toEqual(expect.any(Number));
    expect(order.upstream_paid_at).not.toBeNull();
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(platform.sandbox.control.ledger().pays[String(order.upstream_invoice_id)]).toBe(1);
    expect(platform.sandbox.control.host(hostId)?.nextDueDate).toBeGreaterThan(upstreamDueBefore);
    expect(await dueOf(id)).toBe('2026-02-28 10:00:00');
    expect(formatDateTime(order.due_before)).toBe('2026-01-31 10:00:00');
    expect((await platform.deps.db.models.Order.findOne({ where: { invoice_id: invoice.id } }))?.status).toBe('completed');
    expect(await balanceOf(platform, client)).toBe((Number(balanceBefore) - 66).toFixed(2));

    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ invoiceNo: invoice.invoice_no, outcome: 'succeeded' });
    const attrs = (await handle.describe()).typedSearchAttributes;
    expect([attrs.get(SearchAttr.ServiceId), attrs.get(SearchAttr.UserId), attrs.get(SearchAttr.InvoiceNo)]).toEqual([id, client.id, invoice.invoice_no]);
    expect([attrs.get(SearchAttr.SupplierCode), attrs.get(SearchAttr.ProviderKey), attrs.get(SearchAttr.BusinessStage)]).toEqual(['hk-cloud', 'upstream_finance_api', 'done']);
    const stages = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: id, kind: 'renew' }, order: [['id', 'ASC']] });
    expect(stages.filter((e) => e.status === 'started').map((e) => e.stage)).toEqual(['prepare', 'upstream_renew', 'upstream_pay', 'complete']);
    expect(stages.at(-1)).toMatchObject({ stage: 'done', status: 'succeeded', message: '续费成功，到期时间 2026-01-31 10:00:00 → 2026-02-28 10:00:00' });
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'renewed-upstream');

    const next = await platform.api.get(`${base}/${id}/renew`, { token: client.token });
    expect(next.body.data).toMatchObject({ next_due_at: '2026-02-28 10:00:00', in_progress_invoice_id: null });
    await expectBooksBalanced(platform);
  });

  it('renews after a QR payment too, with the renewal scene on its recharge record', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, nextDueAt: due('2026-12-31 23:00:00') });
    const invoice = await renew(id);
    const qr = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    expect(qr.body.code, qr.body.message).toBe(0);
    await buyerPays(qr.body.data.qr_code_url);
    const order = await orderReaches(invoice.id, ['succeeded']);
    expect(order.upstream_paid_at).not.toBeNull();
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(await dueOf(id)).toBe('2027-01-31 23:00:00');
    const record = await platform.deps.db.models.RechargeRecord.findOne({ where: { invoice_id: invoice.id } });
    expect(record).toMatchObject({ scene: 'renewal', amount: '70.80' });
    await expectBooksBalanced(platform);
  });

  it('extends a service without an upstream binding locally, from an expired due date', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, price: '66.00', status: 'suspended', nextDueAt: due('2025-03-31 08:00:00') });
    const calls = platform.sandbox.control.counters().paths['/host/renew'] ?? 0;
    const invoice = await renew(id, 'quarterly');
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded']);
    expect(order).toMatchObject({ supplier_id: null, upstream_invoice_id: null, months: 3 });
    expect(await dueOf(id)).toBe('2025-06-30 08:00:00');
    expect(platform.sandbox.control.counters().paths['/host/renew'] ?? 0).toBe(calls);
    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    await handle.result();
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'local-only');
  });

  it('renews once when /host/renew commits and then times out: the retry finds the bill among the host’s bills', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, nextDueAt: due('2026-05-15 12:00:00') });
    platform.sandbox.control.failNext(1, 'timeout', { path: '/host/renew', afterCommit: true });
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(order.status).toBe('succeeded');
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(platform.sandbox.control.counters().paths['/host/renew']).toBeGreaterThanOrEqual(1);
    expect(await dueOf(id)).toBe('2026-06-15 12:00:00');
    const bill = await platform.deps.db.models.ServiceEvent.findOne({ where: { service_id: id, kind: 'renew', stage: 'upstream_bill' } });
    expect(bill?.detail).toMatchObject({ via: 'reconciled', upstream_invoice_id: order.upstream_invoice_id });
    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    await handle.result();
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'ambiguous-renew-reconciled');
  });

  it('renews once when /pay commits and then fails: the retry sees the bill paid and pays nothing more', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, nextDueAt: due('2026-03-10 09:30:00') });
    const creditBefore = platform.sandbox.control.credit();
    platform.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(order.status).toBe('succeeded');
    const ledger = platform.sandbox.control.ledger();
    expect(ledger.renewals[String(hostId)]).toBe(1);
    expect(ledger.pays[String(order.upstream_invoice_id)]).toBe(1);
    expect(Number(creditBefore) - Number(platform.sandbox.control.credit())).toBe(59);
    expect(await dueOf(id)).toBe('2026-04-10 09:30:00');
    const paid = await platform.deps.db.models.ServiceEvent.findOne({ where: { service_id: id, kind: 'renew', stage: 'upstream_pay', status: 'succeeded' } });
    expect(paid?.detail).toMatchObject({ via: 'reconciled' });
  });
  it('shows a lost pay answer in the order’s history: the failed attempt, its classification and the reconciliation', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, nextDueAt: due('2026-08-05 07:00:00') });
    platform.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(order.status).toBe('succeeded');
    expect(platform.sandbox.control.ledger().pays[String(order.upstream_invoice_id)]).toBe(1);

    const detail = await platform.api.get(`/api/v2/admin/service-orders/${invoice.id}`, { token: await platform.rootToken() });
    const between = stepsBetween(detail.body.data.steps, { stage: 'upstream_pay', status: 'started' }, { stage: 'complete', status: 'started' });
    expect(between).toEqual([
      expect.objectContaining({ stage: 'upstream_pay', status: 'failed', message: expect.stringMatching(/^第 1 次尝试失败（结果未知，重试前先向上游核对）：\p{Script=Han}/u) }),
      expect.objectContaining({ stage: 'upstream_pay', status: 'info', message: `核对上游：上游账单 #${order.upstream_invoice_id} 已支付，不再重复支付` }),
      expect.objectContaining({ stage: 'upstream_pay', status: 'succeeded', message: `核对确认上游账单 #${order.upstream_invoice_id} 已支付` }),
    ]);
  });

  it('retries transient upstream failures with backoff and renews once', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, nextDueAt: due('2026-10-20 18:00:00') });
    const callsBefore = platform.sandbox.control.counters().paths['/host/renew'] ?? 0;
    platform.sandbox.control.failNext(2, 'maintenance', { path: '/host/renew' });
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(order.status).toBe('succeeded');
    expect((platform.sandbox.control.counters().paths['/host/renew'] ?? 0) - callsBefore).toBe(3);
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(await dueOf(id)).toBe('2026-11-20 18:00:00');
  });
});

describe('renewals awaiting an admin', () => {
  async function failOnLowCredit(nextDueAt: string) {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, price: '66.00', nextDueAt: due(nextDueAt) });
    // A refusal retrying cannot fix (a supplier balance too low waits for a top-up instead: see 'renewals waiting for upstream funds').
    platform.sandbox.control.failNext(1, 'refused', { path: '/pay' });
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const order = await orderReaches(invoice.id, ['awaiting_admin', 'succeeded']);
    return { hostId, id, invoice, order };
  }

  it('stops on a permanent refusal with a Chinese reason, refuses a new renewal meanwhile, and an admin retry renews once', async () => {
    const { hostId, id, invoice, order } = await failOnLowCredit('2026-07-01 00:00:00');
    expect(order).toMatchObject({ status: 'awaiting_admin', stage: 'awaiting_admin', failure_code: 'business_error' });
    expect(order.failure_reason).toMatch(/\p{Script=Han}/u);
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBeUndefined();
    expect(await dueOf(id)).toBe('2026-07-01 00:00:00');
    expectError(await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'monthly' } }), 40941, 409);

    const token = await platform.rootToken();
    const listed = await platform.api.get('/api/v2/admin/service-orders', { token, query: { status: 'awaiting_admin', kind: 'renew', service_id: id } });
    expect(listed.body.data.list).toEqual([expect.objectContaining({ invoice_id: invoice.id, status: 'awaiting_admin', kind_label: '续费', failure_reason: order.failure_reason })]);
    const detail = await platform.api.get(`/api/v2/admin/service-orders/${invoice.id}`, { token });
    expect(detail.body.data).toMatchObject({ upstream_invoice_id: order.upstream_invoice_id, workflow: { id: renewWorkflowId(invoice.invoice_no), status: 'RUNNING', stage: 'awaiting_admin' } });
    expect(detail.body.data.workflow.temporal_ui_url).toContain(encodeURIComponent(renewWorkflowId(invoice.invoice_no)));
    expect(detail.body.data.steps[0]).toMatchObject({ stage: 'upstream_pay', status: 'failed' });
    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    // The search attribute follows the row once the workflow task after the failure completed.
    await eventually(async () => ((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage) === 'awaiting_admin' ? true : null));

    platform.sandbox.control.setCredit('10000.00');
    const retried = await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/retry`, { token, body: { reason: '已充值上游余额' } });
    // The answer's stage is the one after the decision, not the stale awaiting_admin.
    expect(retried.body.data).toMatchObject({ invoice_id: invoice.id, decision: 'retry', stage: 'prepare', delivered: true });
    const done = await orderReaches(invoice.id, ['succeeded']);
    expect(done.runs).toBe(2);
    expect(done.upstream_invoice_id).toBe(order.upstream_invoice_id);
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    // The retry is a row of the order's history, with the admin, as a provisioning's is.
    const steps = (await platform.api.get(`/api/v2/admin/service-orders/${invoice.id}`, { token })).body.data.steps;
    expect(steps).toContainEqual(expect.objectContaining({ stage: 'retry', status: 'info', operator_type: 'admin', message: expect.stringMatching(/^管理员 \S+ 重试$/) }));
    expect(await dueOf(id)).toBe('2026-08-01 00:00:00');
    expectError(await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/retry`, { token }), 40945, 409);
    await handle.result();
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'awaiting-admin-retried');
  });

  it('an admin cancel refunds the invoice to the balance and renews nothing', async () => {
    const balanceBefore = await balanceOf(platform, client);
    const { hostId, id, invoice, order } = await failOnLowCredit('2026-09-01 00:00:00');
    expect(order.status).toBe('awaiting_admin');
    expect(await balanceOf(platform, client)).toBe((Number(balanceBefore) - 66).toFixed(2));
    const token = await platform.rootToken();
    const cancelled = await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/cancel`, { token, body: { reason: '上游暂停续费' } });
    expect(cancelled.body.data).toMatchObject({ invoice_id: invoice.id, decision: 'cancel', stage: 'cancelling', delivered: true });
    const done = await orderReaches(invoice.id, ['cancelled']);
    expect(done.refund_id).not.toBeNull();
    expect(await balanceOf(platform, client)).toBe(balanceBefore);
    const refund = await platform.deps.db.models.Refund.findByPk(done.refund_id ?? 0);
    expect(refund).toMatchObject({ invoice_id: invoice.id, amount: '66.00', refund_method: 'balance', status: 'succeeded', operator_type: 'admin' });
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status).toBe('refunded');
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBeUndefined();
    expect(await dueOf(id)).toBe('2026-09-01 00:00:00');
    expectError(await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/cancel`, { token }), 40945, 409);
    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ invoiceNo: invoice.invoice_no, outcome: 'cancelled' });
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'awaiting-admin-cancelled');
    // The service can renew again once the order is closed.
    const next = await renew(id);
    expect(next.id).not.toBe(invoice.id);
    await expectBooksBalanced(platform);
  });

  it('answers 40400 for an unknown order and 40945 for one that is not waiting', async () => {
    const token = await platform.rootToken();
    const unknown = await platform.api.post('/api/v2/admin/service-orders/999999/retry', { token });
    expectError(unknown, 40400, 404);
    // Upgrades are service orders too: the message names every kind, not only renewals and traffic packages.
    expect(unknown.body.message).toBe('服务订单（续费、流量包或升降级）不存在');
    expectError(await platform.api.get('/api/v2/admin/service-orders/999999', { token }), 40400, 404);
    expectError(await platform.api.post('/api/v2/admin/service-orders/1/cancel', { token, body: { reason: 'x'.repeat(201) } }), 42200, 422);
  });
});

describe('renewals waiting for upstream funds', () => {
  it('waits in awaiting_upstream_funds while the supplier balance is short, then renews once by itself after a top-up', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, price: '66.00', nextDueAt: due('2026-10-01 00:00:00') });
    platform.sandbox.control.setCredit('1.00');
    const invoice = await renew(id);
    await payByBalance(invoice.id);
    const waiting = await eventually(async () => {
      const row = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: invoice.id } });
      return row?.stage === 'awaiting_upstream_funds' ? row : null;
    }, 400);
    expect(waiting).toMatchObject({ status: 'processing', upstream_paid_at: null, failure_code: null });
    expect(Number(waiting.upstream_amount)).toBeGreaterThan(1);
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBeUndefined();
    const handle = platform.temporal.workflow.getHandle(renewWorkflowId(invoice.invoice_no));
    await eventually(async () => ((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage) === 'awaiting_upstream_funds' ? true : null), 400);

    const token = await platform.rootToken();
    const listed = await platform.api.get('/api/v2/admin/service-orders', { token, query: { stage: 'awaiting_upstream_funds', service_id: id } });
    expect(listed.body.data.list).toEqual([expect.objectContaining({ invoice_id: invoice.id, stage: 'awaiting_upstream_funds' })]);
    // It resumes by itself: a retry is refused, a cancel would be taken.
    expectError(await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/retry`, { token }), 40945, 409);
    const alerts = await platform.api.get('/api/v2/admin/economics/funds/alerts', { token, query: { supplier_id: platform.supplierId, kind: 'shortage' } });
    expect(alerts.body.data.list).toEqual([expect.objectContaining({ balance: '1.00', needed: waiting.upstream_amount, resolved_at: null })]);

    platform.sandbox.control.setCredit('10000.00');
    const done = await orderReaches(invoice.id, ['succeeded'], 600);
    expect(done.runs).toBe(1);
    expect(platform.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(platform.sandbox.control.credit()).toBe((10000 - Number(done.upstream_amount)).toFixed(2));
    expect(await dueOf(id)).toBe('2026-11-01 00:00:00');
    await handle.result();
    await recordHistory(handle, RENEW_WORKFLOW_TYPE, 'awaiting-funds-renewed');
  });
});
