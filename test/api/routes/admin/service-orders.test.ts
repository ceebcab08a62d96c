import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RENEW_WORKFLOW_TYPE, renewWorkflowId } from '../../../../workflows/renewal/contract.js';
import { SearchAttr } from '../../../../workflows/search-attributes.js';
import { adjustBalance, balanceOf, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
import { due, renewalCalls } from '../../../helpers/renewals.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';
import { eventually } from '../../../helpers/wait.js';

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
