import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePaymentWorkflowId } from '../../../../workflows/invoice-payment/contract.js';
import { REFUND_WORKFLOW_TYPE, refundWorkflowId } from '../../../../workflows/refund/contract.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
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
  type TestClient,
} from '../../../helpers/billing.js';

let platform: BillingPlatform;
let token: string;

beforeAll(async () => {
  platform = await startBillingPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

/** A purchase of `price`, paid with `balance` from the balance (mixed) and the rest by QR through the sandbox. */
async function paidInvoice(price: string, balance: string | null) {
  const product = await createProduct(platform, price);
  const client = await registerClient(platform);
  const invoice = await purchase(platform, client, product.id);
  if (balance === price) {
    await adjustBalance(platform, client.id, balance);
    await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
  } else {
    if (balance) await adjustBalance(platform, client.id, balance);
    const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: balance !== null } });
    await buyerPays(started.body.data.qr_code_url);
    await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
  }
  return { client, invoice };
}

function refund(client: TestClient, invoiceId: number, body: Record<string, unknown>) {
  return platform.api.post(`/api/v2/admin/users/${client.id}/invoices/${invoiceId}/refunds`, { token, body });
}

describe('balance refunds', () => {
  it('refunds part of a QR-paid invoice to the balance with a red-entry invoice and an offset recharge record', async () => {
    const { client, invoice } = await paidInvoice('80.00', null);
    const res = await refund(client, invoice.id, { refund_method: 'balance', amount: '30.00', remark: '部分退款' });
    const data = res.body.data;
    expect(data).toMatchObject({
      status: 'succeeded',
      message: '退款成功',
      detail: {
        type: 'refund',
        user: { id: client.id },
        refund: { invoice_id: invoice.id, refund_method: 'balance', amount: '30.00', balance_part: '0.00', third_party_part: '30.00', out_request_no: null },
        documents: { refund_id: data.id, refund_invoice_id: expect.any(Number), recharge_record_id: expect.any(Number) },
      },
    });
    const m = platform.deps.db.models;
    const red = await m.Invoice.findByPk(data.detail.documents.refund_invoice_id);
    expect(red).toMatchObject({ type: 'refund', status: 'paid', amount: '-30.00', balance_amount: '-30.00', third_party_amount: '0.00', origin_invoice_id: invoice.id });
    const offset = await m.RechargeRecord.findByPk(data.detail.documents.recharge_record_id);
    const original = await m.RechargeRecord.findOne({ where: { invoice_id: invoice.id, direction: 'in' } });
    expect(offset).toMatchObject({ scene: 'refund', direction: 'out', amount: '-30.00', refund_id: data.id, origin_recharge_record_id: original?.id, entry_type: 'third_party' });
    expect(original?.offset_amount).toBe('30.00');
    expect(await balanceOf(platform, client)).toBe('30.00');
    expect(await m.Invoice.findByPk(invoice.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: '30.00' });
    expect(await m.Payment.findOne({ where: { invoice_id: invoice.id } })).toMatchObject({ status: 'partially_refunded', refunded_amount: '30.00' });

    const tooMuch = await refund(client, invoice.id, { refund_method: 'balance', amount: '50.01' });
    expectError(tooMuch, 40914, 409);
    expect(tooMuch.body.message).toBe('退款金额超过可退金额（剩余可退 50.00 元）');
    const rest = await refund(client, invoice.id, { refund_method: 'balance' });
    expect(rest.body.data.detail.refund.amount).toBe('50.00');
    expect(await m.Invoice.findByPk(invoice.id)).toMatchObject({ status: 'refunded', refunded_amount: '80.00' });
    expect((await m.Order.findOne({ where: { invoice_id: invoice.id } }))?.status).toBe('refunded');
    expect((await m.RechargeRecord.findByPk(original?.id))?.offset_amount).toBe('80.00');
    expect(await balanceOf(platform, client)).toBe('80.00');
    expectError(await refund(client, invoice.id, { refund_method: 'balance', amount: '0.01' }), 40915, 409);
    await expectBooksBalanced(platform);
  });

  it('refunds a balance-paid invoice without any recharge record', async () => {
    const { client, invoice } = await paidInvoice('25.00', '25.00');
    const res = await refund(client, invoice.id, { refund_method: 'balance' });
    expect(res.body.data.detail).toMatchObject({ refund: { amount: '25.00', balance_part: '25.00', third_party_part: '0.00' }, documents: { recharge_record_id: null } });
    expect(await platform.deps.db.models.RechargeRecord.count({ where: { user_id: client.id } })).toBe(1);
    expect(await balanceOf(platform, client)).toBe('25.00');
    await expectBooksBalanced(platform);
  });

  it('splits a mixed payment: the third-party part is offset, the balance part is not', async () => {
    const { client, invoice } = await paidInvoice('100.00', '30.00');
    const res = await refund(client, invoice.id, { refund_method: 'balance', amount: '90.00', scope: ['order'] });
    expect(res.body.data.detail.refund).toMatchObject({ amount: '90.00', third_party_part: '70.00', balance_part: '20.00' });
    const offset = await platform.deps.db.models.RechargeRecord.findByPk(res.body.data.detail.documents.recharge_record_id);
    expect(offset?.amount).toBe('-70.00');
    // scope without `payment`: the payment's status is not projected.
    expect(await platform.deps.db.models.Payment.findOne({ where: { invoice_id: invoice.id } })).toMatchObject({ status: 'paid', refunded_amount: '0.00' });
    expect(await balanceOf(platform, client)).toBe('90.00');
    expectError(await refund(client, invoice.id, { refund_method: 'original' }), 40917, 409);
    await expectBooksBalanced(platform);
  });

  it('checks the preconditions and the request', async () => {
    const product = await createProduct(platform, '10.00');
    const client = await registerClient(platform);
    const unpaid = await purchase(platform, client, product.id);
    expectError(await refund(client, unpaid.id, { refund_method: 'balance' }), 40915, 409);
    const adjustment = await adjustBalance(platform, client.id, '10.00');
    expectError(await refund(client, adjustment.id, { refund_method: 'balance' }), 40915, 409);
    const other = await registerClient(platform);
    expectError(await refund(other, unpaid.id, { refund_method: 'balance' }), 40400, 404);
    for (const body of [{}, { refund_method: 'cash' }, { refund_method: 'balance', amount: '-1.00' }, { refund_method: 'balance', amount: 0 }, { refund_method: 'balance', scope: ['wallet'] }, { refund_method: 'balance', scope: ['order', 'order'] }, { refund_method: 'original', scope: ['order'] }, { refund_method: 'balance', remark: '因'.repeat(201) }]) {
      expectError(await refund(client, unpaid.id, body), 42200, 422);
    }
    expect(await platform.deps.db.models.Refund.count({ where: { user_id: client.id } })).toBe(0);
  });
});

describe('original refunds', () => {
  it('refunds through the gateway in a workflow, reusing one out_request_no when the first attempt fails', async () => {
    const { client, invoice } = await paidInvoice('60.00', '15.00');
    platform.qrpay.control.failNext('qrpay.trade.refund', 1);
    const res = await refund(client, invoice.id, { refund_method: 'original', remark: '原路退回' });
    const data = res.body.data;
    expect(data).toMatchObject({ status: 'succeeded', detail: { refund: { amount: '60.00', third_party_part: '45.00', balance_part: '15.00' } } });
    const refundNo = data.detail.refund.refund_no as string;
    expect(data.detail.refund.out_request_no).toBe(refundNo);

    const m = platform.deps.db.models;
    const attempts = await m.PluginRuntimeLog.findAll({ where: { action: 'payment.refund' }, order: [['id', 'ASC']] });
    const mine = attempts.filter((a) => a.request_summary.includes(refundNo));
    expect(mine.map((a) => a.status)).toEqual(['failure', 'success']);
    for (const attempt of mine) expect(attempt.request_summary).toContain(`"out_request_no":"${refundNo}"`);
    const payment = await m.Payment.findOne({ where: { invoice_id: invoice.id } });
    const trade = platform.qrpay.control.trade(payment?.payment_no ?? '');
    expect(trade?.refunds).toEqual([expect.objectContaining({ outRequestNo: refundNo, refundAmount: '45.00' })]);
    expect(platform.qrpay.control.stats().refunds.executed_by_out_request_no[refundNo]).toBe(1);

    expect(await m.Refund.findByPk(data.id)).toMatchObject({ status: 'succeeded', refund_method: 'original' });
    expect(await m.Invoice.findByPk(data.detail.documents.refund_invoice_id)).toMatchObject({ amount: '-60.00', balance_amount: '-15.00', third_party_amount: '-45.00', payment_channel: 'mixed' });
    expect(await m.RechargeRecord.findByPk(data.detail.documents.recharge_record_id)).toMatchObject({ amount: '-45.00' });
    expect(payment).toMatchObject({ status: 'refunded', refunded_amount: '45.00' });
    expect(await balanceOf(platform, client)).toBe('15.00');

    const handle = platform.temporal.workflow.getHandle(refundWorkflowId(refundNo));
    expect(await handle.result()).toEqual({ refundNo, outcome: 'succeeded' });
    await recordHistory(handle, REFUND_WORKFLOW_TYPE, 'retried-same-request-no');
    await expectBooksBalanced(platform);
  });

  it('marks the refund failed when the gateway refuses it for certain, releasing the amount', async () => {
    const { client, invoice } = await paidInvoice('20.00', null);
    platform.qrpay.control.failNext('qrpay.trade.refund', 1, { subCode: 'ACQ.TRADE_STATUS_ERROR', subMsg: 'trade status error' });
    const res = await refund(client, invoice.id, { refund_method: 'original' });
    expect(res.body.data).toMatchObject({ status: 'failed', detail: { documents: { refund_invoice_id: null, recharge_record_id: null } } });
    expect(res.body.message).toBe('退款失败：交易当前状态不允许此操作');
    expect(await platform.deps.db.models.Invoice.findByPk(invoice.id)).toMatchObject({ status: 'paid', refunded_amount: '0.00' });
    const again = await refund(client, invoice.id, { refund_method: 'balance' });
    expect(again.body.data.detail.refund.amount).toBe('20.00');
    await expectBooksBalanced(platform);
  });

  it('lists and shows refunds to admins', async () => {
    const list = await platform.api.get('/api/v2/admin/refunds', { token, query: { refund_method: 'original', sort: '-amount' } });
    expect(list.body.data.list.map((r: { amount: string; status: string }) => [r.amount, r.status])).toEqual([
      ['60.00', 'succeeded'],
      ['20.00', 'failed'],
    ]);
    const detail = await platform.api.get(`/api/v2/admin/refunds/${list.body.data.list[0].id}`, { token });
    expect(detail.body.data).toMatchObject({ scope: ['order', 'payment'], reason: '原路退回', operator_name: 'root' });
    const payments = await platform.api.get('/api/v2/admin/payments', { token, query: { status: 'refunded' } });
    expect(payments.body.data.list.map((p: { refunded_amount: string }) => p.refunded_amount).sort()).toEqual(['20.00', '45.00', '80.00']);
    expect(payments.body.data.list[0]).toMatchObject({ status: 'refunded', settlement: 'invoice', gateway: 'qrpay', paid_source: 'notify' });
    const red = await platform.api.get('/api/v2/admin/invoices', { token, query: { type: 'refund' } });
    expect(red.body.data.list.every((i: { amount: string; origin_invoice_id: number | null }) => i.amount.startsWith('-') && i.origin_invoice_id !== null)).toBe(true);
  });
});
