import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RENEW_WORKFLOW_TYPE, renewWorkflowId } from '../../../workflows/renewal/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { formatDateTime } from '../../../lib/time.js';
import { adjustBalance, balanceOf, buyerPays, expectBooksBalanced, registerClient, type TestClient } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { due, renewalCalls } from '../../helpers/renewals.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../helpers/services.js';
import { stepsBetween } from '../../helpers/steps.js';
import { eventually } from '../../helpers/wait.js';

/** The renewal workflow, started by paying a renewal invoice of the client route, to its outcome and its recorded history. */
let platform: ServicesPlatform;
let client: TestClient;
const { renew, payByBalance, orderReaches, dueOf } = renewalCalls(() => ({ platform, client }));

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
