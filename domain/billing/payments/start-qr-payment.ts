import { AppError, ErrorCode, validationError } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import { invokePlugin } from '../../../plugins/runtime/invoke.js';
import { resolvePluginTarget } from '../../../plugins/runtime/resolve-target.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { QRPAY_NOTIFY_PATH } from '../constants.js';
import { INVOICE_KINDS } from '../invoice-kinds.js';
import { lockInvoice } from '../invoices/lock-invoice.js';
import { assertPayable } from '../invoices/payable-check.js';
import { lockAccount } from '../ledger/lock-account.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { isTemporalUnavailable, REQUEST_DEADLINE_MS } from '../../../lib/temporal.js';
import { intentKeys, markIntentDone, recordIntent, TRY_NOW_GRACE_MS } from '../../outbox/intents.js';
import { closeQrPayment } from './close-qr-payment.js';
import { startPaymentWorkflow } from './start-payment-workflow.js';
import { PAYMENT_COLUMNS, type PaymentRecord } from '../../../db/models/billing.js';

export type QrPaymentStart = { payment: PaymentRecord; invoiceNo: string; created: boolean };

/**
 * Opens (or returns) the QR payment of the user's unpaid invoice. A pending, unexpired
 * payment is returned as it is (idempotent; concurrent calls queue on the invoice lock). A new
 * one takes the optional balance part first (mixed payment: a negative `payment` transaction,
 * reversed if the QR part is never paid), then the payment row (our out_trade_no =
 * payment_no) with its `payment:<payment_no>` outbox row, then `payment.precreate` through the
 * default payment plugin, then the durable workflow `invoice-payment:<invoice_no>` (tried at once
 * with a 2 s deadline; when Temporal cannot be reached the answer still stands and the outbox
 * relay starts it). A failed precreate closes the payment again (balance part reversed) and
 * answers 50300 with the plugin's Chinese message.
 */
export async function startQrPayment(
  deps: DomainDeps,
  input: { userId: number; invoiceId: number; useBalance: boolean },
  audit: Audit,
): Promise<QrPaymentStart> {
  const { plugin } = await resolvePluginTarget(deps, 'payment', { binding: { scene: 'default' } });
  const opened = await inTransaction(deps, async (transaction) => {
    const invoice = await lockInvoice(deps, input.invoiceId, input.userId, transaction);
    assertPayable(invoice);
    const existing = await sqlOne<PaymentRecord>(
      deps,
      `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE invoice_id = $1 AND status = 'pending' FOR UPDATE`,
      [invoice.id],
      transaction,
    );
    if (existing) {
      if (existing.expires_at.getTime() <= Date.now()) {
        throw new AppError(ErrorCode.PAYMENT_IN_PROGRESS, '上一笔扫码支付已过期，正在关闭，请稍后再试', { payment_no: existing.payment_no });
      }
      return { payment: existing, invoice, created: false };
    }
    const total = money(invoice.amount);
    if (total.lte(0)) throw validationError({ invoice: ['金额为 0 的账单请使用余额支付'] }, '金额为 0 的账单请使用余额支付');
    let balancePart = money(0);
    if (input.useBalance) {
      if (!INVOICE_KINDS[invoice.type].payableFromBalance) {
        throw validationError({ use_balance: ['充值账单不能使用余额抵扣'] }, '充值账单不能使用余额抵扣');
      }
      const account = await lockAccount(deps, invoice.user_id, transaction);
      const available = money(account.balance);
      if (available.gte(total)) {
        throw validationError({ use_balance: ['余额足以支付全部金额，请直接使用余额支付'] }, '余额足以支付全部金额，请直接使用余额支付');
      }
      if (available.gt(0)) balancePart = available;
    }
    const expiresAt = new Date(Date.now() + deps.config.payments.qrWindowSeconds * 1000);
    const payment = await sqlOne<PaymentRecord>(
      deps,
      `INSERT INTO payments (invoice_id, user_id, plugin_id, gateway, amount, balance_part, status, expires_at, trace_id)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8) RETURNING ${PAYMENT_COLUMNS}`,
      [invoice.id, invoice.user_id, plugin.id, plugin.key, formatMoney(total.minus(balancePart)), formatMoney(balancePart), expiresAt, audit.traceId],
      transaction,
    );
    if (!payment) throw new Error('payment not written');
    // The payment must be followed (polled, closed at the end of its window) even if this process
    // dies or cannot reach Temporal after the commit: the relay starts the workflow then.
    await recordIntent(
      deps,
      {
        kind: 'start_payment',
        key: intentKeys.payment(payment.payment_no),
        payload: { payment_no: payment.payment_no, invoice_no: invoice.invoice_no },
        delayMs: TRY_NOW_GRACE_MS,
      },
      transaction,
    );
    if (balancePart.gt(0)) {
      await postAccountTransaction(
        deps,
        {
          userId: invoice.user_id,
          type: 'payment',
          amount: balancePart.negated(),
          idempotencyKey: `qr-balance:${payment.payment_no}`,
          invoiceId: invoice.id,
          paymentId: payment.id,
          remark: `余额抵扣（组合支付）：${invoice.subject}`,
          audit,
        },
        transaction,
      );
      await sqlOne(deps, 'UPDATE invoices SET balance_amount = $2, updated_at = now() WHERE id = $1 RETURNING id', [invoice.id, formatMoney(balancePart)], transaction);
    }
    return { payment, invoice, created: true };
  });

  let payment = opened.payment;
  if (payment.qr_code_url === '') payment = await precreate(deps, payment, opened.invoice.subject, audit);
  try {
    await startPaymentWorkflow(deps, { invoiceNo: opened.invoice.invoice_no, payment }, REQUEST_DEADLINE_MS);
    await markIntentDone(deps, intentKeys.payment(payment.payment_no));
  } catch (err) {
    // The QR code is valid and the payment recorded: the answer stands, the relay starts the workflow.
    const level = isTemporalUnavailable(err) ? 'warn' : 'error';
    deps.logger[level]({ err, paymentNo: payment.payment_no }, 'payment workflow not started now; the outbox relay starts it');
  }
  return { payment, invoiceNo: opened.invoice.invoice_no, created: opened.created };
}

/** The gateway's QR code for the payment (the gateway answers the same code for a repeated out_trade_no). */
async function precreate(deps: DomainDeps, payment: PaymentRecord, subject: string, audit: Audit): Promise<PaymentRecord> {
  const result = await invokePlugin(deps, {
    domain: 'payment',
    pluginId: payment.plugin_id ?? -1,
    action: 'payment.precreate',
    payload: {
      out_trade_no: payment.payment_no,
      total_amount: payment.amount,
      subject: subject.slice(0, 128),
      notify_url: `${deps.config.publicBaseUrl.replace(/\/+$/, '')}${QRPAY_NOTIFY_PATH}`,
    },
    actor: audit.operator,
    ...(audit.traceId ? { traceId: audit.traceId } : {}),
  });
  const qrCode = typeof result.data.qr_code === 'string' ? result.data.qr_code : '';
  if (!result.success || qrCode === '') {
    try {
      await closeQrPayment(deps, payment.payment_no, audit);
    } catch (err) {
      deps.logger.error({ err, paymentNo: payment.payment_no }, 'closing a payment whose precreate failed did not finish; the payment workflow or reconciler closes it');
    }
    throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, result.message || '创建支付二维码失败，请稍后重试');
  }
  const updated = await sqlOne<PaymentRecord>(
    deps,
    `UPDATE payments SET qr_code_url = $2, updated_at = now() WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
    [payment.id, qrCode.slice(0, 512)],
  );
  return updated ?? payment;
}
