import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { systemAudit, userAudit } from '../../../domain/billing/audit.js';
import { repairFulfilmentOutbox } from '../../../domain/upstream-work/repair-fulfilment-outbox.js';
import { closeExpiredPayments } from '../../../domain/billing/payments/close-expired-payments.js';
import { insertInvoice } from '../../../domain/billing/invoices/insert-invoice.js';
import { payInvoiceByBalance } from '../../../domain/billing/payments/pay-invoice-by-balance.js';
import { settleQrPayment } from '../../../domain/billing/payments/settle-qr-payment.js';
import { INVOICE_PAYMENT_WORKFLOW_TYPE, invoicePaymentWorkflowId, PAYMENT_STAGES } from '../../../workflows/invoice-payment/contract.js';
import { recordHistory } from '../../helpers/histories.js';
import { PROVISION_WORKFLOW_TYPE, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { adjustBalance, balanceOf, buyerPays, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { eventually } from '../../helpers/wait.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

describe('payments that cannot go to their invoice any more, and amounts that do not add up', () => {
  it('credits a payment that arrives after its payment was closed to the balance, once', async () => {
    const product = await createProduct(platform, '40.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const window = platform.deps.config.payments.qrWindowSeconds;
    platform.deps.config.payments.qrWindowSeconds = 1;
    let started;
    try {
      started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    } finally {
      platform.deps.config.payments.qrWindowSeconds = window;
    }
    expect((await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result()).outcome).toBe('closed');
    const paymentNo = started.body.data.payment_no as string;
    // A gateway that took the money anyway (our close raced its payment).
    const late = { paymentNo, tradeNo: `LATE${Date.now()}`, amount: '40.00', source: 'notify' as const };
    const first = await settleQrPayment(platform.deps, late, systemAudit('test'));
    const again = await settleQrPayment(platform.deps, late, systemAudit('test'));
    expect([first.changed, first.settlement, again.changed]).toEqual([true, 'balance_credit', false]);
    expect(await platform.deps.db.models.Payment.findOne({ where: { payment_no: paymentNo } })).toMatchObject({ status: 'paid', settlement: 'balance_credit' });
    expect(await balanceOf(platform, client)).toBe('40.00');
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status).toBe('unpaid');
    expect(await platform.deps.db.models.RechargeRecord.findOne({ where: { payment_id: first.payment.id } })).toMatchObject({ scene: 'user_recharge', amount: '40.00' });
    await expectBooksBalanced(platform);
  });

  it('refuses a reported amount that differs from the payment (40916) and changes nothing', async () => {
    const product = await createProduct(platform, '10.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const intervals = platform.deps.config.payments.qrPollIntervalsSeconds;
    platform.deps.config.payments.qrPollIntervalsSeconds = [600];
    let started;
    try {
      started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    } finally {
      platform.deps.config.payments.qrPollIntervalsSeconds = intervals;
    }
    const wrong = settleQrPayment(platform.deps, { paymentNo: started.body.data.payment_no, tradeNo: 'T1', amount: '9.99', source: 'notify' }, systemAudit());
    await expect(wrong).rejects.toSatisfy((e) => e instanceof AppError && e.code === 40916);
    expect((await platform.deps.db.models.Payment.findOne({ where: { payment_no: started.body.data.payment_no } }))?.status).toBe('pending');
    await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).terminate('test over');
    await expectBooksBalanced(platform);
  });
});

type OutboxRow = { done_at: Date | null; attempts: number; last_error: string | null };

async function outboxRow(key: string): Promise<OutboxRow | null> {
  const [row] = await platform.deps.db.read<OutboxRow>('SELECT done_at, attempts, last_error FROM outbox WHERE key = $1', [key]);
  return row ?? null;
}

describe('fulfilment dispatch', () => {
  it('is performed by the outbox relay alone: the paying process needs no Temporal', async () => {
    const product = await createProduct(platform, '5.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '5.00');
    const invoice = await purchase(platform, client, product.id);
    // A process without Temporal pays all the same: the settlement's outbox row is the whole promise.
    const cut = { ...platform.deps, temporal: undefined };
    await payInvoiceByBalance(cut, { userId: client.id, invoiceId: invoice.id }, userAudit(client.id, 'no-temporal'));
    const done = await eventually(async () => {
      const row = await outboxRow(`fulfil:${invoice.id}`);
      return row?.done_at ? row : null;
    });
    expect(done).toMatchObject({ last_error: null, attempts: 1 });
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at).not.toBeNull();
    const service = await platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } });
    expect((await platform.temporal.workflow.getHandle(provisionWorkflowId(service?.id ?? 0)).describe()).type).toBe(PROVISION_WORKFLOW_TYPE);
    expect(await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 })).toMatchObject({ found: 0 });
    await expectBooksBalanced(platform);
  });

  it('leaves a paid invoice that cannot be fulfilled in its outbox row with the reason, which the backstop reports without dispatching', async () => {
    const client = await registerClient(platform);
    // A renewal that names no service: nothing can renew it.
    const { invoice } = await platform.deps.db.sequelize.transaction((transaction) =>
      insertInvoice(
        platform.deps,
        {
          userId: client.id,
          type: 'renew',
          status: 'unpaid',
          subject: '续费测试',
          amount: '12.00',
          items: [{ key: 'renew', description: '续费 1 个月', unitAmount: '12.00', quantity: 1, amount: '12.00' }],
          order: { productId: null, billingPeriod: 'monthly', quantity: 1, config: {} },
          audit: userAudit(client.id, 'renew-test'),
        },
        transaction,
      ),
    );
    const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    await buyerPays(started.body.data.qr_code_url);
    const handle = platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no));
    // The payment workflow no longer dispatches (patch `fulfilment-by-outbox`): it ends settled.
    expect(await handle.result()).toMatchObject({ outcome: 'paid', dispatched: false });
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage)).toBe(PAYMENT_STAGES.settled);
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status).toBe('paid');
    await recordHistory(handle, INVOICE_PAYMENT_WORKFLOW_TYPE, 'fulfilment-impossible-left-to-outbox');

    const failing = await eventually(async () => {
      const row = await outboxRow(`fulfil:${invoice.id}`);
      return row && row.attempts > 0 && row.last_error ? row : null;
    });
    expect(failing.done_at).toBeNull();
    expect(failing.last_error).toContain('names no service');
    const summary = await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 });
    expect(summary).toMatchObject({ found: 1, inserted: 0, reopened: 0, waiting: 1, failed: 1, invoiceIds: { waiting: [invoice.id] } });
    expect(summary.errors[0]).toMatchObject({ invoiceId: invoice.id, error: expect.stringContaining('names no service') });
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at).toBeNull();
    await expectBooksBalanced(platform);
  });
});

describe('the hourly backstops (built-in tasks)', () => {
  async function runOf(workflowId: string) {
    return eventually(async () => {
      const row = await platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: workflowId }, order: [['id', 'DESC']] });
      return row && row.status !== 'running' ? row : null;
    });
  }

  it('close a QR payment whose workflow is gone once its window is over, reversing its balance part', async () => {
    const product = await createProduct(platform, '30.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '10.00');
    const invoice = await purchase(platform, client, product.id);
    const window = platform.deps.config.payments.qrWindowSeconds;
    platform.deps.config.payments.qrWindowSeconds = 1;
    let started;
    try {
      started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: true } });
    } finally {
      platform.deps.config.payments.qrWindowSeconds = window;
    }
    await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).terminate('operator mistake');
    const payment = await platform.deps.db.models.Payment.findOne({ where: { payment_no: started.body.data.payment_no } });
    await eventually(async () => ((payment?.expires_at.getTime() ?? Infinity) < Date.now() ? true : null));
    expect(await closeExpiredPayments(platform.deps, { graceSeconds: 0 })).toMatchObject({ closed: 1, failed: 0 });
    expect((await platform.deps.db.models.Payment.findOne({ where: { payment_no: started.body.data.payment_no } }))?.status).toBe('closed');
    expect(await balanceOf(platform, client)).toBe('10.00');
    await expectBooksBalanced(platform);
  });

  it('are triggered by admins like any built-in task and record their runs', async () => {
    const token = await platform.rootToken();
    for (const key of ['billing.redispatch_fulfilment', 'billing.close_expired_payments']) {
      const res = await platform.api.post(`/api/v2/admin/schedules/${key}/trigger`, { token });
      expect(res.body.data).toMatchObject({ key, kind: 'task' });
      const run = await runOf(res.body.data.workflow_id);
      expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual' });
      expect(run.summary).toMatchObject({ found: 0, failed: 0 });
    }
    const overview = await platform.api.get('/api/v2/admin/schedules/overview', { token });
    const keys = overview.body.data.list.filter((i: { key: string }) => i.key.startsWith('billing.')).map((i: { key: string; effective_cadence: string }) => [i.key, i.effective_cadence]);
    expect(keys).toEqual([
      ['billing.redispatch_fulfilment', '60m'],
      ['billing.close_expired_payments', '60m'],
      ['billing.cancel_stale_invoices', '0 3 * * *'],
    ]);
  });
});
