import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVISION_WORKFLOW_TYPE, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { balanceOf, buyerPays, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { buyWithBalance, PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../../helpers/provisioning.js';
import { stepsBetween } from '../../helpers/steps.js';
import { eventually } from '../../helpers/wait.js';

let platform: BillingPlatform;
let upstream: UpstreamCatalogue;
let token: string;

beforeAll(async () => {
  platform = await startBillingPlatform(PROVISION_TEST_ENV);
  upstream = await setUpUpstreamProduct(platform);
  token = await platform.rootToken();
});
afterAll(async () => {
  await upstream?.sandbox.stop();
  await platform?.close();
});

async function downstreamToken(serviceId: number): Promise<string> {
  const service = await platform.deps.db.models.Service.findByPk(serviceId);
  return service?.downstream_token ?? '';
}

async function awaitingAdmin(serviceId: number) {
  return eventually(async () => {
    const res = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    return res.body.data.stage === 'awaiting_admin' && res.body.data.workflow_stage === 'awaiting_admin' ? res.body.data : null;
  }, 600);
}

describe('provisioning', () => {
  it('buys a paid service upstream once and activates it with its host data', async () => {
    const product = await platform.deps.db.models.Product.findByPk(upstream.productId);
    const ubuntu = product?.config_options.find((o) => o.field === 'os')?.sub.find((s) => s.version?.startsWith('Ubuntu'));
    const { serviceId, invoice } = await buyWithBalance(platform, upstream.productId, { config: { os: ubuntu?.id } });
    const service = await serviceReaches(platform, serviceId, ['active', 'failed']);
    expect(service).toMatchObject({ status: 'active', provider_key: 'upstream_finance_api', plugin_key: 'upstream_finance', console_template: 'compute', provisioning_stage: 'done' });
    // The product's name as sold is kept with the service (snapshotted at payment).
    expect(service.product_name).toBe(product?.display_name || product?.name);
    expect(service.product_name).not.toBe('');
    expect(service.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(service.os).toContain('Ubuntu');
    expect(service.next_due_at?.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    // The upstream's own due date is kept apart from the customer's.
    expect(service.upstream_due_at).toBeInstanceOf(Date);
    const ref = await downstreamToken(serviceId);
    expect(ref).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(upstream.sandbox.control.ledger().purchases[ref]).toBe(1);

    const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
    expect(binding).toMatchObject({ supplier_id: upstream.supplierId, provider_key: 'upstream_finance_api', upstream_product_id: '101' });
    expect(binding?.upstream_host_id).toBeGreaterThan(0);
    expect(upstream.sandbox.control.host(binding?.upstream_host_id ?? 0)?.status.toLowerCase()).toBe('active');

    const handle = platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId));
    expect(await handle.result()).toEqual({ serviceId, outcome: 'active', hostId: binding?.upstream_host_id });
    const attrs = (await handle.describe()).typedSearchAttributes;
    expect(attrs.get(SearchAttr.BusinessStage)).toBe('done');
    expect(attrs.get(SearchAttr.ServiceId)).toBe(serviceId);
    expect(attrs.get(SearchAttr.InvoiceNo)).toBe(invoice.invoice_no);
    expect(attrs.get(SearchAttr.SupplierCode)).toBe(`sup-${platform.id}`);
    expect(attrs.get(SearchAttr.ProviderKey)).toBe('upstream_finance_api');
    // Recorded under new names: the histories from before the patch `provision-stage-in-step`
    // (`provisionServiceWorkflow--active.json`, …) stay as they were, the proof that those runs replay.
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'active-stage-in-step');

    const detail = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    expect(detail.body.data).toMatchObject({ status: 'active', stage: 'done', workflow_status: 'COMPLETED', downstream_reference_created: true, invoice_no: invoice.invoice_no });
    expect(detail.body.data.temporal_ui_url).toContain(encodeURIComponent(`provision:${serviceId}`));
    const started = detail.body.data.steps.filter((s: { status: string }) => s.status === 'started').map((s: { stage: string }) => s.stage).reverse();
    expect(started).toEqual(['prepare', 'login', 'cart', 'checkout', 'upstream_pay', 'host_lookup', 'bind', 'activate']);
    const order = await platform.deps.db.models.Order.findOne({ where: { invoice_id: invoice.id } });
    expect(order?.status).toBe('completed');
  });

  it('provisions a purchase paid by QR code too', async () => {
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, upstream.productId);
    const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    await buyerPays(started.body.data.qr_code_url);
    const service = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } }));
    expect((await serviceReaches(platform, service.id, ['active', 'failed'])).status).toBe('active');
    expect(upstream.sandbox.control.ledger().purchases[await downstreamToken(service.id)]).toBe(1);
  });

  it('retries transient upstream failures and logs in again after a rejected token', async () => {
    upstream.sandbox.control.failNext(2, 'html500', { path: '/cart/add_to_shop' });
    upstream.sandbox.control.failNext(1, 'token_rejected', { path: '/host/header' });
    upstream.sandbox.control.failNext(1, 'maintenance', { path: '/pay' });
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, serviceId, ['active', 'failed'])).status).toBe('active');
    expect(upstream.sandbox.control.ledger().purchases[await downstreamToken(serviceId)]).toBe(1);
  });

  it('reconciles after an order or a payment whose answer was lost, and buys and pays once', async () => {
    upstream.sandbox.control.failNext(1, 'html500', { path: '/cart/settle', afterCommit: true });
    upstream.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, serviceId, ['active', 'failed'])).status).toBe('active');
    const ledger = upstream.sandbox.control.ledger();
    const ref = await downstreamToken(serviceId);
    expect(ledger.purchases[ref]).toBe(1);
    const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
    expect(ledger.pays[String(binding?.upstream_invoice_id)]).toBe(1);
  });

  it('shows a lost pay answer in the step history: the failed attempt, its classification and the reconciliation', async () => {
    upstream.sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, serviceId, ['active', 'failed'])).status).toBe('active');
    const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
    expect(upstream.sandbox.control.ledger().pays[String(binding?.upstream_invoice_id)]).toBe(1);

    const detail = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    const between = stepsBetween(detail.body.data.steps, { stage: 'upstream_pay', status: 'started' }, { stage: 'host_lookup', status: 'started' });
    expect(between).toEqual([
      expect.objectContaining({ stage: 'upstream_pay', status: 'failed', message: expect.stringMatching(/^第 1 次尝试失败（结果未知，重试前先向上游核对）：\p{Script=Han}/u) }),
      expect.objectContaining({ stage: 'upstream_pay', status: 'info', message: `核对上游：上游账单 #${binding?.upstream_invoice_id} 已支付，不再重复支付` }),
    ]);
    const attempt = await platform.deps.db.models.ServiceEvent.findOne({ where: { service_id: serviceId, stage: 'upstream_pay', status: 'failed' } });
    expect(attempt?.detail).toMatchObject({ attempt: 1, kind: 'ambiguous', failure_type: 'UpstreamAmbiguous' });
  });

  it('waits for an admin when retries run out on a supplier that stays down, then completes on retry', async () => {
    upstream.sandbox.control.failNext(50, 'html500', { path: '/cart/add_to_shop' });
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    const waiting = await awaitingAdmin(serviceId);
    expect(waiting).toMatchObject({ status: 'failed', failure_code: 'upstream_unavailable' });
    expect(waiting.failure_reason).toContain('已重试多次');
    upstream.sandbox.control.clearFaults();
    expect((await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: {} })).body.code).toBe(0);
    expect((await serviceReaches(platform, serviceId, ['active'])).status).toBe('active');
    expect(upstream.sandbox.control.ledger().purchases[await downstreamToken(serviceId)]).toBe(1);
  });

  it('waits for slow provisioning upstream', async () => {
    upstream.sandbox.control.setProvisioningDelay({ polls: 3, ms: 0 });
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, serviceId, ['active', 'failed'])).status).toBe('active');
    upstream.sandbox.control.setProvisioningDelay({ polls: 0, ms: 0 });
    const polls = await platform.deps.db.models.ServiceEvent.count({ where: { service_id: serviceId, stage: 'host_lookup' } });
    expect(polls).toBe(1);
  });

  it('stops on out of stock with a Chinese reason, and an admin retry with the same reference buys once', async () => {
    upstream.sandbox.control.setStock(101, 0);
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    const waiting = await awaitingAdmin(serviceId);
    expect(waiting).toMatchObject({ status: 'failed', failure_code: 'out_of_stock' });
    expect(waiting.failure_reason).toMatch(/\p{Script=Han}/u);
    const ref = await downstreamToken(serviceId);
    expect(upstream.sandbox.control.ledger().purchases[ref]).toBeUndefined();

    const stuck = await platform.api.get('/api/v2/admin/provisioning', { token, query: { status: 'failed', stuck_minutes: 0 } });
    expect(stuck.body.data.list.map((r: { service_id: number }) => r.service_id)).toContain(serviceId);
    const notYet = await platform.api.get('/api/v2/admin/provisioning', { token, query: { stuck_minutes: 60 } });
    expect(notYet.body.data.list.map((r: { service_id: number }) => r.service_id)).not.toContain(serviceId);

    upstream.sandbox.control.setStock(101, null);
    const retried = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: { reason: '已补货' } });
    expect(retried.body.code).toBe(0);
    // The answer carries the stage after the decision, and the history names the admin who retried.
    expect(retried.body.data).toMatchObject({ stage: 'prepare', delivered: true });
    expect((await serviceReaches(platform, serviceId, ['active'])).status).toBe('active');
    const history = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    expect(history.body.data.steps).toContainEqual(expect.objectContaining({ stage: 'retry', status: 'info', message: expect.stringMatching(/^管理员 \S+ 重试$/) }));
    expect(await downstreamToken(serviceId)).toBe(ref);
    expect(upstream.sandbox.control.ledger().purchases[ref]).toBe(1);
    const handle = platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId));
    await handle.result();
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'failed-then-retried-stage-in-step');
    expectError(await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: {} }), 40931, 409);
  });

  // A supplier balance too low waits for a top-up instead (./funds-wait.test.ts).
  it('stops when the upstream refuses the payment, and an admin cancel refunds the service to the balance', async () => {
    upstream.sandbox.control.failNext(1, 'refused', { path: '/pay' });
    const { serviceId, client } = await buyWithBalance(platform, upstream.productId);
    const waiting = await awaitingAdmin(serviceId);
    expect(waiting).toMatchObject({ failure_code: 'business_error', stage: 'awaiting_admin' });
    const before = await balanceOf(platform, client);
    expectError(await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: {} }), 42200, 422);
    const cancelled = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: { reason: '上游余额不足' } });
    expect(cancelled.body.code).toBe(0);
    expect(cancelled.body.data).toMatchObject({ stage: 'cancelling', delivered: true });
    const service = await serviceReaches(platform, serviceId, ['cancelled']);
    expect(await balanceOf(platform, client)).toBe((Number(before) + Number(service.price)).toFixed(2));
    const handle = platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId));
    expect((await handle.result()).outcome).toBe('cancelled');
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'failed-then-cancelled-stage-in-step');
    expect(await platform.deps.db.models.Refund.count({ where: { trace_id: `provision-cancel:${serviceId}` } })).toBe(1);
    await expectBooksBalanced(platform);
  });
});
