import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUND_WORKFLOW_TYPE, refundWorkflowId } from '../../../workflows/refund/contract.js';
import { balanceOf, type BillingPlatform, expectBooksBalanced, startBillingPlatform } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { refundCalls } from '../../helpers/refunds.js';

/** The refund workflow, started by an admin's original refund, to its outcome and its recorded history. */
let platform: BillingPlatform;
let token: string;
const { paidInvoice, refund } = refundCalls(() => ({ platform, token }));

beforeAll(async () => {
  platform = await startBillingPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

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
});
