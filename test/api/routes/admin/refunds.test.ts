import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { refundCalls } from '../../../helpers/refunds.js';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../../helpers/billing.js';

let platform: BillingPlatform;
let token: string;

beforeAll(async () => {
  platform = await startBillingPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

const { paidInvoice, refund } = refundCalls(() => ({ platform, token }));

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

describe('the refund list', () => {
  it('lists and shows refunds to admins', async () => {
    const list = await platform.api.get('/api/v2/admin/refunds', { token, query: { refund_method: 'balance', sort: '-amount' } });
    expect(list.body.data.list.map((r: { amount: string; status: string }) => [r.amount, r.status])).toEqual([
      ['90.00', 'succeeded'],
      ['50.00', 'succeeded'],
      ['30.00', 'succeeded'],
      ['25.00', 'succeeded'],
    ]);
    const detail = await platform.api.get(`/api/v2/admin/refunds/${list.body.data.list[2].id}`, { token });
    expect(detail.body.data).toMatchObject({ scope: ['order', 'payment'], reason: '部分退款', operator_name: 'root' });
    expectError(await platform.api.get('/api/v2/admin/refunds/999999', { token }), 40400, 404);
    expectError(await platform.api.get('/api/v2/admin/refunds', { token, query: { refund_method: 'cash' } }), 42200, 422);
    const payments = await platform.api.get('/api/v2/admin/payments', { token, query: { status: 'refunded' } });
    expect(payments.body.data.list.map((p: { refunded_amount: string }) => p.refunded_amount)).toEqual(['80.00']);
    expect(payments.body.data.list[0]).toMatchObject({ status: 'refunded', settlement: 'invoice', gateway: 'qrpay', paid_source: 'notify' });
    const red = await platform.api.get('/api/v2/admin/invoices', { token, query: { type: 'refund' } });
    expect(red.body.data.list.every((i: { amount: string; origin_invoice_id: number | null }) => i.amount.startsWith('-') && i.origin_invoice_id !== null)).toBe(true);
  });
});
