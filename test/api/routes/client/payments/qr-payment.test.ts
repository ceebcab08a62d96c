import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOICE_PAYMENT_WORKFLOW_TYPE, invoicePaymentWorkflowId } from '../../../../../workflows/invoice-payment/contract.js';
import { provisionWorkflowId } from '../../../../../workflows/provisioning/contract.js';
import { SearchAttr } from '../../../../../workflows/search-attributes.js';
import { recordHistory } from '../../../../helpers/histories.js';
import { expectError } from '../../../../helpers/http.js';
import {
  adjustBalance,
  balanceOf,
  buyerPays,
  createProduct,
  expectBooksBalanced,
  purchase,
  registerClient,
  startBillingPlatform,
  type BillingPlatform,
} from '../../../../helpers/billing.js';
import { eventually } from '../../../../helpers/wait.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

async function payment(paymentNo: string) {
  return platform.deps.db.models.Payment.findOne({ where: { payment_no: paymentNo } });
}

describe('QR payment of a purchase through the sandbox gateway', () => {
  it('creates one payment (idempotently), settles once on the notification, dispatches provisioning and finishes its workflow', async () => {
    const product = await createProduct(platform, '88.80');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);

    const first = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: {} });
    expect(first.body.data).toMatchObject({ status: 'pending', amount: '88.80', balance_part: '0.00', invoice_id: invoice.id });
    expect(first.body.data.qr_code_url).toBe(`${platform.qrpay.baseUrl}/scan/${first.body.data.payment_no}`);
    expect(first.raw).not.toMatch(/base64|data:image/);
    const again = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    expect(again.body.data.payment_no).toBe(first.body.data.payment_no);
    expect(await platform.deps.db.models.Payment.count({ where: { invoice_id: invoice.id } })).toBe(1);

    const handle = platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no));
    const described = await handle.describe();
    expect(described.type).toBe(INVOICE_PAYMENT_WORKFLOW_TYPE);
    expect(described.typedSearchAttributes.get(SearchAttr.InvoiceNo)).toBe(invoice.invoice_no);
    expect(described.typedSearchAttributes.get(SearchAttr.UserId)).toBe(client.id);

    const pending = await platform.api.get(`/api/v2/client/invoices/${invoice.id}/pay/qrpay/status`, { token: client.token });
    expect(pending.body.data).toMatchObject({ invoice_status: 'unpaid', paid: false, payment: { status: 'pending' } });

    await buyerPays(first.body.data.qr_code_url);
    const result = await handle.result();
    // The workflow ends once it sees the payment (woken by the relay's signal); the relay starts the fulfilment.
    expect(result).toEqual({ paymentNo: first.body.data.payment_no, outcome: 'paid', dispatched: false });
    expect(await eventually(async () => (await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at ?? null)).toBeInstanceOf(Date);
    // Recorded under its own name: `paid-by-notification` is the run from before patch `fulfilment-by-outbox`.
    await recordHistory(handle, INVOICE_PAYMENT_WORKFLOW_TYPE, 'paid-by-notification-fulfilled-by-outbox');

    const paid = await payment(first.body.data.payment_no);
    expect(paid).toMatchObject({ status: 'paid', settlement: 'invoice', paid_source: 'notify', amount: '88.80' });
    expect(paid?.trade_no).toEqual(platform.qrpay.control.trade(first.body.data.payment_no)?.tradeNo);
    await platform.qrpay.control.idle();
    expect(platform.qrpay.control.stats().notifications.by_out_trade_no[first.body.data.payment_no]).toEqual({ sent: 1, acknowledged: 1 });

    const status = await platform.api.get(`/api/v2/client/invoices/${invoice.id}/pay/qrpay/status`, { token: client.token });
    expect(status.body.data).toMatchObject({ invoice_status: 'paid', paid: true, payment: { status: 'paid', qr_code_url: null, trade_no: paid?.trade_no } });
    const detail = await platform.api.get(`/api/v2/client/invoices/${invoice.id}`, { token: client.token });
    expect(detail.body.data).toMatchObject({ status: 'paid', payment_channel: 'qrpay', balance_amount: '0.00', third_party_amount: '88.80', order: { status: 'paid' } });
    expect(detail.body.data).not.toHaveProperty('payload');
    expect(detail.body.data).not.toHaveProperty('trace_id');

    const records = await platform.deps.db.models.RechargeRecord.findAll({ where: { invoice_id: invoice.id } });
    expect(records.map((r) => [r.scene, r.direction, r.entry_type, r.amount, r.payment_id])).toEqual([['new_purchase', 'in', 'third_party', '88.80', paid?.id]]);
    expect(await platform.deps.db.models.AccountTransaction.count({ where: { user_id: client.id } })).toBe(0);

    const service = await platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } });
    const provision = platform.temporal.workflow.getHandle(provisionWorkflowId(service?.id ?? 0));
    // The product has no supplier: provisioning starts, and waits visibly for an admin.
    const stage = await eventually(async () => {
      const info = await provision.describe();
      return info.typedSearchAttributes.get(SearchAttr.BusinessStage) === 'awaiting_admin' ? info : null;
    });
    expect(stage.typedSearchAttributes.get(SearchAttr.ServiceId)).toBe(service?.id);
    await expectBooksBalanced(platform);
  });

  it('settles by polling the gateway when no notification reaches us', async () => {
    const product = await createProduct(platform, '12.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const base = platform.deps.config.publicBaseUrl;
    platform.deps.config.publicBaseUrl = 'http://127.0.0.1:9';
    try {
      const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
      await buyerPays(started.body.data.qr_code_url);
      const result = await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
      expect(result.outcome).toBe('paid');
      expect(await payment(started.body.data.payment_no)).toMatchObject({ status: 'paid', paid_source: 'poll' });
      expect(platform.qrpay.control.stats().notifications.by_out_trade_no[started.body.data.payment_no]?.acknowledged ?? 0).toBe(0);
    } finally {
      platform.deps.config.publicBaseUrl = base;
    }
    await expectBooksBalanced(platform);
  });

  it('takes the balance part first in a mixed payment, and refuses balance payment while the QR part is pending', async () => {
    const product = await createProduct(platform, '100.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '30.00');
    const invoice = await purchase(platform, client, product.id);
    const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: true } });
    expect(started.body.data).toMatchObject({ amount: '70.00', balance_part: '30.00', status: 'pending' });
    expect(await balanceOf(platform, client)).toBe('0.00');
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token }), 40913, 409);
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/cancel`, { token: client.token }), 40913, 409);

    await buyerPays(started.body.data.qr_code_url);
    await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
    const detail = await platform.api.get(`/api/v2/client/invoices/${invoice.id}`, { token: client.token });
    expect(detail.body.data).toMatchObject({ status: 'paid', payment_channel: 'mixed', balance_amount: '30.00', third_party_amount: '70.00' });
    const record = await platform.deps.db.models.RechargeRecord.findOne({ where: { invoice_id: invoice.id } });
    expect(record?.amount).toBe('70.00');
    await expectBooksBalanced(platform);
  });

  it('refuses a full balance cover through pay/qrpay, a recharge invoice paid from the balance, and another user\'s invoice', async () => {
    const product = await createProduct(platform, '5.00');
    const client = await registerClient(platform);
    const other = await registerClient(platform);
    await adjustBalance(platform, client.id, '10.00');
    const invoice = await purchase(platform, client, product.id);
    const covered = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: true } });
    expectError(covered, 42200, 422);
    expect(covered.body.data.errors.use_balance).toEqual(['余额足以支付全部金额，请直接使用余额支付']);
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: other.token }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: other.token }), 40400, 404);
    expectError(await platform.api.get(`/api/v2/client/invoices/${invoice.id}`, { token: other.token }), 40400, 404);
    expect(await platform.deps.db.models.Payment.count({ where: { invoice_id: invoice.id } })).toBe(0);

    const recharge = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '20.00' } });
    const paidByBalance = await platform.api.post(`/api/v2/client/invoices/${recharge.body.data.invoice_id}/pay/balance`, { token: client.token });
    expectError(paidByBalance, 42200, 422);
    expect(await balanceOf(platform, client)).toBe('10.00');
  });
});

describe('the payment window', () => {
  it('closes the trade at the gateway when it expires, reverses the balance part, and a new payment can follow', async () => {
    const product = await createProduct(platform, '50.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '20.00');
    const invoice = await purchase(platform, client, product.id);
    const window = platform.deps.config.payments.qrWindowSeconds;
    platform.deps.config.payments.qrWindowSeconds = 2;
    let started;
    try {
      started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: true } });
    } finally {
      platform.deps.config.payments.qrWindowSeconds = window;
    }
    expect(started.body.data).toMatchObject({ balance_part: '20.00', amount: '30.00' });
    const handle = platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no));
    expect(await handle.result()).toEqual({ paymentNo: started.body.data.payment_no, outcome: 'closed', dispatched: false });
    await recordHistory(handle, INVOICE_PAYMENT_WORKFLOW_TYPE, 'window-closed-mixed');

    expect(await payment(started.body.data.payment_no)).toMatchObject({ status: 'closed', paid_at: null });
    expect(platform.qrpay.control.trade(started.body.data.payment_no)?.status).toBe('TRADE_CLOSED');
    const late = await fetch(`${started.body.data.qr_code_url}/pay`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(late.status).toBe(409);
    expect(await balanceOf(platform, client)).toBe('20.00');
    const logs = await platform.api.get('/api/v2/client/balance-logs', { token: client.token });
    expect(logs.body.data.list.map((l: { type: string; amount: string }) => [l.type, l.amount])).toEqual([
      ['payment_reversal', '20.00'],
      ['payment', '-20.00'],
      ['admin_recharge', '20.00'],
    ]);
    const detail = await platform.api.get(`/api/v2/client/invoices/${invoice.id}`, { token: client.token });
    expect(detail.body.data).toMatchObject({ status: 'unpaid', balance_amount: '0.00' });

    const second = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    expect(second.body.data.payment_no).not.toBe(started.body.data.payment_no);
    await buyerPays(second.body.data.qr_code_url);
    await eventually(async () => ((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at ? true : null));
    expect((await platform.api.get(`/api/v2/client/invoices/${invoice.id}`, { token: client.token })).body.data).toMatchObject({
      status: 'paid',
      payment_channel: 'qrpay',
      third_party_amount: '50.00',
    });
    await expectBooksBalanced(platform);
  });

  it('cancels an unpaid invoice without payments, and no longer takes payment for it', async () => {
    const product = await createProduct(platform, '9.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const cancelled = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/cancel`, { token: client.token });
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', order: { status: 'cancelled' } });
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token }), 40912, 409);
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token }), 40912, 409);
    await expectBooksBalanced(platform);
  });
});

describe('duplicated gateway notifications and the payment plugin', () => {
  it('settles once when the gateway delivers every notification three times', async () => {
    platform.qrpay.control.setNotificationCopies(3);
    try {
      const product = await createProduct(platform, '21.00');
      const client = await registerClient(platform);
      const invoice = await purchase(platform, client, product.id);
      const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
      await buyerPays(started.body.data.qr_code_url);
      await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
      await platform.qrpay.control.idle();
      expect(platform.qrpay.control.stats().notifications.by_out_trade_no[started.body.data.payment_no]).toEqual({ sent: 3, acknowledged: 3 });
      const m = platform.deps.db.models;
      expect(await m.Payment.count({ where: { invoice_id: invoice.id, status: 'paid' } })).toBe(1);
      expect(await m.RechargeRecord.count({ where: { invoice_id: invoice.id } })).toBe(1);
      expect(await m.Service.count({ where: { invoice_id: invoice.id } })).toBe(1);
    } finally {
      platform.qrpay.control.setNotificationCopies(1);
    }
    await expectBooksBalanced(platform);
  });

  it('keeps its payments when the payment plugin is uninstalled: refused while referenced, detached with force=1', async () => {
    const token = await platform.rootToken();
    const payments = await platform.deps.db.models.Payment.count();
    expect(payments).toBeGreaterThan(0);
    const refused = await platform.api.del(`/api/v2/admin/integration-plugins/${platform.pluginId}`, { token });
    expectError(refused, 40901, 409);
    expect(refused.body.data.references).toContainEqual({ name: 'payments', label: '支付记录', count: payments });
    const forced = await platform.api.del(`/api/v2/admin/integration-plugins/${platform.pluginId}`, { token, query: { force: 1 } });
    expect(forced.body.code).toBe(0);
    expect(await platform.deps.db.models.Payment.count()).toBe(payments);
    expect(await platform.deps.db.models.Payment.count({ where: { plugin_id: null } })).toBe(payments);
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, (await createProduct(platform, '1.00')).id);
    const noPlugin = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    expectError(noPlugin, 42200, 422);
    expect(noPlugin.body.message).toBe('未配置可用的支付插件');
    await expectBooksBalanced(platform);
  });
});
