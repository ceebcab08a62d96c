import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRAFFIC_WORKFLOW_TYPE, trafficWorkflowId } from '../../../workflows/traffic-package/contract.js';
import { adjustBalance, expectBooksBalanced, registerClient, type TestClient } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { createService, serviceOrderReaches, type ServicesPlatform, startServicesPlatform, takeHost } from '../../helpers/services.js';

/** The traffic-package workflow, started by paying a package invoice of the client route, to its outcome and its recorded history. */
let platform: ServicesPlatform;
let client: TestClient;

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '2000.00');
});
afterAll(() => platform?.close());
beforeEach(() => platform.sandbox.control.clearFaults());

const base = '/api/v2/client/services';
const orderReaches = (invoiceId: number, statuses: string[]) => serviceOrderReaches(platform, invoiceId, statuses);

async function order(serviceId: number, packageId: number) {
  const res = await platform.api.post(`${base}/${serviceId}/traffic-packages/order`, { token: client.token, body: { package_id: packageId } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as { id: number; invoice_no: string; amount: string };
}

async function pay(invoiceId: number) {
  const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
  expect(res.body.code, res.body.message).toBe(0);
}

describe('traffic packages upstream', () => {
  it('buys a paid package upstream exactly once and records it', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const invoice = await order(id, 12);
    await pay(invoice.id);
    const done = await orderReaches(invoice.id, ['succeeded']);
    expect(done).toMatchObject({ kind: 'traffic_package', package_id: 12, package_name: '流量包 500GB', size_gb: 500, upstream_amount: '45.00' });
    expect(platform.sandbox.control.ledger().trafficPurchases[`${hostId}:12`]).toBe(1);
    expect(platform.sandbox.control.host(hostId)?.extraTrafficGb).toBe(500);
    expect((await platform.deps.db.models.Order.findOne({ where: { invoice_id: invoice.id } }))?.status).toBe('completed');
    const recorded = await platform.deps.db.models.ServiceEvent.findOne({ where: { service_id: id, kind: 'traffic', stage: 'done' } });
    expect(recorded).toMatchObject({ status: 'succeeded', message: '流量包已到账：流量包 500GB' });
    const runtime = await platform.api.get(`${base}/${id}/runtime`, { token: client.token });
    expect(runtime.body.data.traffic).toMatchObject({ limit_gb: 1500, extra_gb: 500 });

    const handle = platform.temporal.workflow.getHandle(trafficWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ invoiceNo: invoice.invoice_no, outcome: 'succeeded' });
    await recordHistory(handle, TRAFFIC_WORKFLOW_TYPE, 'bought');
    // Another package can be ordered once the first is done.
    expect((await order(id, 11)).id).not.toBe(invoice.id);
    await expectBooksBalanced(platform);
  });

  it('buys once when the upstream commits the purchase and then times out', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    platform.sandbox.control.failNext(1, 'timeout', { path: '/host/flowpacket/buy', afterCommit: true });
    const invoice = await order(id, 11);
    await pay(invoice.id);
    const done = await orderReaches(invoice.id, ['succeeded', 'awaiting_admin']);
    expect(done.status).toBe('succeeded');
    expect(platform.sandbox.control.ledger().trafficPurchases[`${hostId}:11`]).toBe(1);
    expect(platform.sandbox.control.host(hostId)?.extraTrafficGb).toBe(100);
    // The order's history says why it took longer: the attempt that timed out, then the bill found upstream.
    const history = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: id, kind: 'traffic', stage: 'upstream_buy' }, order: [['id', 'ASC']] });
    expect(history.map((e) => [e.status, e.detail['kind'] ?? e.detail['reconciliation'] ?? null])).toEqual([
      ['started', null],
      ['failed', 'ambiguous'],
      ['info', 'found'],
    ]);
    expect(history[2]?.message).toBe(`核对上游：找到上次申请的上游账单 #${done.upstream_invoice_id}，沿用，不再重复申请`);
    const handle = platform.temporal.workflow.getHandle(trafficWorkflowId(invoice.invoice_no));
    await handle.result();
    await recordHistory(handle, TRAFFIC_WORKFLOW_TYPE, 'ambiguous-buy-reconciled');
  });

  it('waits for an admin when the upstream refuses, and a cancel refunds the package to the balance', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    platform.sandbox.control.failNext(1, 'refused', { path: '/pay' });
    try {
      const invoice = await order(id, 13);
      await pay(invoice.id);
      const failed = await orderReaches(invoice.id, ['awaiting_admin']);
      expect(failed.failure_code).toBe('business_error');
      expectError(await platform.api.post(`${base}/${id}/traffic-packages/order`, { token: client.token, body: { package_id: 11 } }), 40941, 409);
      const token = await platform.rootToken();
      await platform.api.post(`/api/v2/admin/service-orders/${invoice.id}/cancel`, { token, body: { reason: '上游余额不足' } });
      const cancelled = await orderReaches(invoice.id, ['cancelled']);
      const refund = await platform.deps.db.models.Refund.findByPk(cancelled.refund_id ?? 0);
      expect(refund).toMatchObject({ amount: '96.00', status: 'succeeded' });
      expect(platform.sandbox.control.ledger().trafficPurchases[`${hostId}:13`]).toBeUndefined();
      const handle = platform.temporal.workflow.getHandle(trafficWorkflowId(invoice.invoice_no));
      expect(await handle.result()).toMatchObject({ outcome: 'cancelled' });
      await recordHistory(handle, TRAFFIC_WORKFLOW_TYPE, 'awaiting-admin-cancelled');
    } finally {
      platform.sandbox.control.setCredit('10000.00');
    }
    await expectBooksBalanced(platform);
  });
});
