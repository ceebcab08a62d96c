import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sqlRows } from '../../../db/sql.js';
import { PROVISION_WORKFLOW_TYPE, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { balanceOf, expectBooksBalanced, startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { buyWithBalance, PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../../helpers/provisioning.js';
import { eventually } from '../../helpers/wait.js';

/**
 * Issue #29 "Upstream funds never strand a paid order": a provisioning whose supplier balance is
 * short waits in `awaiting_upstream_funds` (row, history and search attribute), admins are told
 * once, and it goes on by itself after a top-up, buying and paying upstream once; an admin may
 * cancel it meanwhile (one refund).
 */
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
beforeEach(() => {
  upstream.sandbox.control.clearFaults();
  upstream.sandbox.control.setCredit('10000.00');
});

const FUNDS = 'awaiting_upstream_funds';

/** The provisioning once it waits for funds: on its row, in the admin detail and as the search attribute. */
async function waitingForFunds(serviceId: number) {
  const detail = await eventually(async () => {
    const res = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    return res.body.data.stage === FUNDS ? res.body.data : null;
  }, 600);
  const handle = platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId));
  await eventually(async () => ((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage) === FUNDS ? true : null), 600);
  return { detail, handle };
}

async function shortageAlerts() {
  const res = await platform.api.get('/api/v2/admin/economics/funds/alerts', { token, query: { supplier_id: upstream.supplierId, kind: 'shortage' } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.list as Array<{ id: number; resolved_at: string | null; needed: string | null; balance: string | null; workflow_id: string | null }>;
}

async function upstreamInvoiceOf(serviceId: number): Promise<number> {
  const binding = await eventually(async () => {
    const row = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
    return row?.upstream_invoice_id ? row : null;
  });
  return Number(binding.upstream_invoice_id);
}

/** The balance read kept for the supplier (the funds check writes it on every read). */
async function balanceRead() {
  const rows = await sqlRows<{ balance: string; read_at: Date }>(platform.deps, 'SELECT balance::text AS balance, read_at FROM supplier_balances WHERE supplier_id = $1', [upstream.supplierId]);
  return rows[0] ?? null;
}

describe('a provisioning waiting for upstream funds', () => {
  it('waits visibly while the supplier balance is short, tells admins once, and buys and pays once by itself after a top-up', async () => {
    upstream.sandbox.control.setCredit('0.00');
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    const { detail, handle } = await waitingForFunds(serviceId);
    expect(detail).toMatchObject({ stage: FUNDS, failure_code: null });
    expect(detail.steps).toContainEqual(expect.objectContaining({ stage: FUNDS, status: 'started', message: '上游余额不足，等待充值后自动继续' }));
    const invoiceId = await upstreamInvoiceOf(serviceId);
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();
    expect(upstream.sandbox.control.invoice(invoiceId)?.status).toBe('Unpaid');

    // The admin list filters on the stage; a retry is refused (it resumes by itself).
    const listed = await platform.api.get('/api/v2/admin/provisioning', { token, query: { stage: FUNDS } });
    expect(listed.body.data.list.map((r: { service_id: number }) => r.service_id)).toContain(serviceId);
    expectError(await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: { reason: '重试' } }), 40931, 409);

    // One notice, still one after more checks found the balance short.
    const first = await balanceRead();
    await eventually(async () => {
      const now = await balanceRead();
      return now && first && now.read_at.getTime() > first.read_at.getTime() ? true : null;
    }, 600);
    const alerts = await shortageAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ balance: '0.00', resolved_at: null, workflow_id: provisionWorkflowId(serviceId) });
    expect(Number(alerts[0]?.needed)).toBeGreaterThan(0);
    const told = await platform.api.get('/api/v2/admin/economics/alerts', { token, query: { kind: 'funds_short' } });
    expect(told.body.data.total).toBe(1);
    expect(told.body.data.list[0]).toMatchObject({ severity: 'critical', state: 'open', subject: { workflow_id: provisionWorkflowId(serviceId) } });
    const funds = await platform.api.get('/api/v2/admin/economics/funds', { token });
    expect(funds.body.data.list).toContainEqual(expect.objectContaining({ supplier_id: upstream.supplierId, balance: '0.00', awaiting_funds: 1, shortage_open: true }));
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();

    upstream.sandbox.control.setCredit('10000.00');
    const service = await serviceReaches(platform, serviceId, ['active', 'failed']);
    expect(service.status).toBe('active');
    const ledger = upstream.sandbox.control.ledger();
    expect(ledger.pays[String(invoiceId)]).toBe(1);
    expect(ledger.purchases[service.downstream_token ?? '']).toBe(1);
    const bill = upstream.sandbox.control.invoice(invoiceId);
    expect(bill?.status).toBe('Paid');
    // Charged once: the balance went down by the bill, once.
    expect(upstream.sandbox.control.credit()).toBe((10000 - Number(bill?.total)).toFixed(2));
    expect(await handle.result()).toMatchObject({ serviceId, outcome: 'active' });
    expect((await shortageAlerts())[0]?.resolved_at).not.toBeNull();
    const steps = (await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token })).body.data.steps as Array<{ stage: string; status: string }>;
    const started = steps.filter((s) => s.status === 'started').map((s) => s.stage).reverse();
    expect(started).toEqual(['prepare', 'login', 'cart', 'checkout', FUNDS, 'upstream_pay', 'host_lookup', 'bind', 'activate']);
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'funds-waited-then-paid-stage-in-step');
  });

  it('waits the same way when the upstream refuses the payment for funds (the balance read raced another purchase)', async () => {
    // The checkout's answer is lost after it committed: the order is found again by the probe,
    // without its amount, so nothing is checked before paying; the payment is refused for funds.
    upstream.sandbox.control.failNext(1, 'html500', { path: '/cart/settle', afterCommit: true });
    upstream.sandbox.control.setCredit('0.00');
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    const { handle } = await waitingForFunds(serviceId);
    const invoiceId = await upstreamInvoiceOf(serviceId);
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();
    const service = await platform.deps.db.models.Service.findByPk(serviceId);
    expect(service?.failure_code ?? null).toBeNull();

    upstream.sandbox.control.setCredit('10000.00');
    expect((await serviceReaches(platform, serviceId, ['active', 'failed'])).status).toBe('active');
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBe(1);
    expect(upstream.sandbox.control.ledger().purchases[service?.downstream_token ?? '']).toBe(1);
    await handle.result();
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'payment-refused-for-funds-then-paid-stage-in-step');
  });

  it('an admin cancel while it waits refunds the service once and pays nothing upstream', async () => {
    upstream.sandbox.control.setCredit('0.00');
    const { serviceId, client } = await buyWithBalance(platform, upstream.productId);
    const { handle } = await waitingForFunds(serviceId);
    const before = await balanceOf(platform, client);
    const cancelled = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: { reason: '上游长期余额不足' } });
    expect(cancelled.body.code, cancelled.body.message).toBe(0);
    expect(cancelled.body.data).toMatchObject({ stage: 'cancelling', delivered: true });
    const service = await serviceReaches(platform, serviceId, ['cancelled']);
    expect(await balanceOf(platform, client)).toBe((Number(before) + Number(service.price)).toFixed(2));
    expect(await handle.result()).toMatchObject({ outcome: 'cancelled' });
    expect(await platform.deps.db.models.Refund.count({ where: { trace_id: `provision-cancel:${serviceId}` } })).toBe(1);
    const invoiceId = await upstreamInvoiceOf(serviceId);
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();
    expectError(await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: { reason: '再次取消' } }), 40931, 409);
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'funds-wait-cancelled-stage-in-step');
    await expectBooksBalanced(platform);
  });
});

describe('a bill the upstream voided', () => {
  it('is a permanent failure of the provisioning naming the bill, and nothing is paid upstream', async () => {
    upstream.sandbox.control.setCredit('0.00');
    const { serviceId } = await buyWithBalance(platform, upstream.productId);
    await waitingForFunds(serviceId);
    const invoiceId = await upstreamInvoiceOf(serviceId);
    // The upstream voids the bill while the provisioning waits for funds; then the balance is topped up.
    expect(upstream.sandbox.control.voidBill(invoiceId)).toBe(true);
    upstream.sandbox.control.setCredit('10000.00');

    const detail = await eventually(async () => {
      const res = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
      return res.body.data.stage === 'awaiting_admin' ? res.body.data : null;
    }, 600);
    expect(detail).toMatchObject({ failure_code: 'upstream_bill_void' });
    expect(detail.failure_reason).toContain(`上游账单 #${invoiceId} 已取消或不存在`);
    expect(upstream.sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();
    expect(upstream.sandbox.control.credit()).toBe('10000.00');
    expect(upstream.sandbox.control.invoice(invoiceId)?.status).toBe('Cancelled');
  });
});
