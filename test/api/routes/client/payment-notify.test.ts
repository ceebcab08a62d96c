import { SYSTEM_ACTOR } from '../../../../lib/actor.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updatePluginConfig } from '../../../../domain/plugins/plugin-lifecycle.js';
import { invokePlugin } from '../../../../plugins/runtime/invoke.js';
import { invoicePaymentWorkflowId } from '../../../../workflows/invoice-payment/contract.js';
import { buyerPays, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform, QRPAY_TEST_APP_ID } from '../../../helpers/billing.js';
import { postNotification, startNotificationCapture } from '../../../helpers/notification-capture.js';
import { eventually } from '../../../helpers/wait.js';

let platform: BillingPlatform;
let capture: Awaited<ReturnType<typeof startNotificationCapture>>;

beforeAll(async () => {
  platform = await startBillingPlatform();
  capture = await startNotificationCapture();
});
afterAll(async () => {
  await capture?.stop();
  await platform?.close();
});

/** A QR payment whose genuine notification went to the capture instead of us; answers it and the invoice. */
async function capturedPayment(price: string) {
  const product = await createProduct(platform, price);
  const client = await registerClient(platform);
  const invoice = await purchase(platform, client, product.id);
  const { publicBaseUrl, payments } = platform.deps.config;
  const intervals = payments.qrPollIntervalsSeconds;
  platform.deps.config.publicBaseUrl = capture.url;
  // No poll during the test: what settles is the notification under test (which also wakes the workflow).
  payments.qrPollIntervalsSeconds = [600];
  let started;
  try {
    started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
  } finally {
    platform.deps.config.publicBaseUrl = publicBaseUrl;
    payments.qrPollIntervalsSeconds = intervals;
  }
  const paymentNo = started.body.data.payment_no as string;
  return { client, invoice, paymentNo, qrCodeUrl: started.body.data.qr_code_url as string };
}

async function snapshot(invoiceId: number) {
  const m = platform.deps.db.models;
  return {
    payments: (await m.Payment.findAll({ where: { invoice_id: invoiceId } })).map((p) => [p.status, p.trade_no, p.paid_at?.getTime() ?? null]),
    invoice: (await m.Invoice.findByPk(invoiceId))?.status,
    records: await m.RechargeRecord.count({ where: { invoice_id: invoiceId } }),
    services: await m.Service.count({ where: { invoice_id: invoiceId } }),
    transactions: await m.AccountTransaction.count(),
  };
}

describe('the QR notification receiver', () => {
  it('settles exactly once for 100 parallel copies of the same notification, answering each with plain success', async () => {
    const { invoice, paymentNo, qrCodeUrl } = await capturedPayment('66.60');
    await buyerPays(qrCodeUrl);
    const fields = await eventually(async () => capture.for(paymentNo));
    expect(fields).toMatchObject({ out_trade_no: paymentNo, trade_status: 'TRADE_SUCCESS', total_amount: '66.60', app_id: QRPAY_TEST_APP_ID });

    const answers = await Promise.all(Array.from({ length: 100 }, () => postNotification(platform.baseUrl, fields)));
    expect(answers.every((a) => a.status === 200 && a.text === 'success' && a.contentType.startsWith('text/plain'))).toBe(true);

    const m = platform.deps.db.models;
    const payments = await m.Payment.findAll({ where: { invoice_id: invoice.id } });
    expect(payments.map((p) => [p.status, p.settlement, p.paid_source, p.trade_no])).toEqual([['paid', 'invoice', 'notify', fields.trade_no]]);
    expect(await m.RechargeRecord.count({ where: { payment_id: payments[0]?.id } })).toBe(1);
    expect(await m.Service.count({ where: { invoice_id: invoice.id } })).toBe(1);
    expect((await m.Invoice.findByPk(invoice.id))?.status).toBe('paid');

    const before = await snapshot(invoice.id);
    const replay = await postNotification(platform.baseUrl, fields);
    expect(replay).toMatchObject({ status: 200, text: 'success' });
    expect(await snapshot(invoice.id)).toEqual(before);
    const result = await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
    expect(result).toMatchObject({ paymentNo, outcome: 'paid', dispatched: false });
    // The request called no Temporal: the workflow's "look now" and the fulfilment were outbox rows, one each, performed by the relay.
    const rows = await eventually(async () => {
      const found = await platform.deps.db.read<{ kind: string; done_at: Date | null; last_error: string | null }>(
        'SELECT kind, done_at, last_error FROM outbox WHERE key IN ($1, $2) ORDER BY kind',
        [`payment-notified:${paymentNo}`, `fulfil:${invoice.id}`],
      );
      return found.length === 2 && found.every((r) => r.done_at) ? found : null;
    });
    expect(rows.map((r) => r.kind)).toEqual(['signal_payment', 'start_fulfilment']);
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at).not.toBeNull();
    await expectBooksBalanced(platform);
  });

  it('refuses tampered and forged notifications with 40001 / HTTP 401 and changes nothing', async () => {
    const { invoice, paymentNo, qrCodeUrl } = await capturedPayment('45.00');
    const before = await snapshot(invoice.id);

    const forged = await platform.qrpay.control.sendForgedNotification(paymentNo, { notifyUrl: `${platform.baseUrl}/api/v2/client/payment/qrpay/notify` });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body ?? '{}')).toMatchObject({ code: 40001, message: '支付通知签名校验失败' });

    await buyerPays(qrCodeUrl);
    const genuine = await eventually(async () => capture.for(paymentNo));
    const tampered = await postNotification(platform.baseUrl, { ...genuine, total_amount: '0.01', receipt_amount: '0.01', buyer_pay_amount: '0.01' });
    expect(tampered.status).toBe(401);
    expect(JSON.parse(tampered.text)).toMatchObject({ code: 40001 });
    const unsigned = await postNotification(platform.baseUrl, { ...genuine, sign: '' });
    expect(unsigned.status).toBe(401);
    const otherTrade = await postNotification(platform.baseUrl, { ...genuine, trade_no: 'FORGED0001' });
    expect(otherTrade.status).toBe(401);
    expect(await snapshot(invoice.id)).toEqual(before);

    const empty = await postNotification(platform.baseUrl, {});
    expect(empty.status).toBe(401);
    expect(await snapshot(invoice.id)).toEqual(before);

    const valid = await postNotification(platform.baseUrl, genuine);
    expect(valid).toMatchObject({ status: 200, text: 'success' });
    expect((await snapshot(invoice.id)).invoice).toBe('paid');
    await expectBooksBalanced(platform);
  });

  it('refuses a genuine notification for another app id (40918), and one for a payment that is not ours (40400)', async () => {
    const { invoice, paymentNo, qrCodeUrl } = await capturedPayment('10.00');
    await buyerPays(qrCodeUrl);
    const genuine = await eventually(async () => capture.for(paymentNo));
    await updatePluginConfig(platform.deps, platform.pluginId, { app_id: 'another-app' });
    try {
      const foreign = await postNotification(platform.baseUrl, genuine);
      expect(foreign.status).toBe(409);
      expect(JSON.parse(foreign.text)).toMatchObject({ code: 40918 });
    } finally {
      await updatePluginConfig(platform.deps, platform.pluginId, { app_id: QRPAY_TEST_APP_ID });
    }
    expect((await snapshot(invoice.id)).invoice).toBe('unpaid');
    await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).terminate('test over');

    // A genuinely signed notification about a trade we never created.
    const stranger = `STRANGER${Date.now()}`;
    const precreated = await invokePlugin(platform.deps, {
      domain: 'payment',
      slug: 'qrpay',
      action: 'payment.precreate',
      payload: { out_trade_no: stranger, total_amount: '1.00', subject: '外部交易', notify_url: capture.url },
      actor: SYSTEM_ACTOR,
    });
    await buyerPays(String(precreated.data.qr_code));
    const strange = await eventually(async () => capture.for(stranger));
    const unknown = await postNotification(platform.baseUrl, strange);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 40400, message: '支付单不存在' });
    await expectBooksBalanced(platform);
  });
});
