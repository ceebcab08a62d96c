import { AppError, ErrorCode, notFound } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { insertRechargeRecord } from '../ledger/insert-recharge-record.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { inTransaction, sqlOne, statement, qualified } from '../../../db/sql.js';
import { INVOICE_COLUMNS, type InvoiceRecord, type PaidSource, PAYMENT_COLUMNS, type PaymentRecord } from '../../../db/models/billing.js';
import { settleInvoice } from './settle-invoice.js';
import { intentKeys, OUTBOX_CHANNEL } from '../../outbox/intents.js';

const PAYMENT_SELECT = qualified(PAYMENT_COLUMNS, 'p');
const INVOICE_FIELDS = INVOICE_COLUMNS.split(',').map((c) => c.trim());

const PAYMENT_WITH_INVOICE_NO = statement(`SELECT ${PAYMENT_SELECT}, i.invoice_no FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.payment_no = $1`);

/**
 * The payment and its invoice, both row-locked by one statement (payment first, then invoice:
 * the order of every money path); the invoice's columns come prefixed `invoice__`.
 */
const LOCK_PAYMENT_AND_INVOICE = statement(
  `SELECT ${PAYMENT_SELECT}, i.invoice_no, ${INVOICE_FIELDS.map((c) => `i.${c} AS invoice__${c}`).join(', ')}
     FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.payment_no = $1 FOR UPDATE OF p, i`,
);

function splitLocked(row: Record<string, unknown>): { payment: PaymentRecord & { invoice_no: string }; invoice: InvoiceRecord } {
  const payment: Record<string, unknown> = {};
  const invoice: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('invoice__')) invoice[key.slice('invoice__'.length)] = value;
    else payment[key] = value;
  }
  return { payment: payment as PaymentRecord & { invoice_no: string }, invoice: invoice as InvoiceRecord };
}

/**
 * The payment paid; for a gateway notification ($9), in the same statement, the outbox row that
 * tells the invoice's payment workflow to look now (`signal_payment`, due at once, one per
 * payment) and the relay's wake-up. The workflow would find the payment at its next poll anyway.
 */
const MARK_PAID = statement(
  `WITH paid AS (
     UPDATE payments SET status = 'paid', trade_no = $2, paid_at = now(), paid_source = $3, notify_id = $4, settlement = $5,
         closed_at = NULL, updated_at = now()
       WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}
   ), signal AS (
     INSERT INTO outbox (kind, key, payload, next_attempt_at)
     SELECT 'signal_payment', $6, jsonb_build_object('invoice_no', $7::text, 'payment_no', paid.payment_no), now() FROM paid WHERE $9::boolean
     ON CONFLICT (key) DO NOTHING RETURNING pg_notify($8, '0')
   )
   SELECT * FROM paid`,
);

function isSettled(payment: PaymentRecord): boolean {
  return payment.status !== 'pending' && payment.status !== 'closed';
}

export type GatewayPaid = {
  paymentNo: string;
  tradeNo: string;
  /** What the signed notification or query says was paid, two digits. */
  amount: string;
  source: PaidSource;
  notifyId?: string | null;
};

export type QrSettlement = {
  /** False when the payment was already paid: nothing changed. */
  changed: boolean;
  payment: PaymentRecord;
  invoiceId: number;
  invoiceNo: string;
  /** `invoice`: the invoice was settled; `balance_credit`: it no longer could be, the money went to the balance. */
  settlement: 'invoice' | 'balance_credit' | null;
};

/**
 * Records a gateway-confirmed payment exactly once: the payment row is locked first, so any
 * number of concurrent notifications and polls queue there and only the first one changes
 * anything; (gateway, trade_no) is UNIQUE besides. The amount must equal the payment's
 * exactly (40916 otherwise, nothing changes). A pending payment settles its invoice (balance
 * part + this third-party part). A payment that was already closed, or whose invoice can no
 * longer be paid, is still recorded (the money did arrive) and credited to the balance with a
 * `user_recharge` recharge record, never applied twice. A notification's settlement also records
 * the `signal_payment` outbox row (see MARK_PAID): the request itself never calls Temporal.
 */
export async function settleQrPayment(deps: DomainDeps, paid: GatewayPaid, audit: Audit): Promise<QrSettlement> {
  // A repeat (the common case under retried notifications) needs no lock: `paid` never goes back to pending.
  const seen = await sqlOne<PaymentRecord & { invoice_no: string }>(deps, PAYMENT_WITH_INVOICE_NO, [paid.paymentNo]);
  if (seen && isSettled(seen) && seen.trade_no === paid.tradeNo && money(paid.amount).eq(seen.amount)) {
    return { changed: false, payment: seen, invoiceId: seen.invoice_id, invoiceNo: seen.invoice_no, settlement: seen.settlement };
  }
  return inTransaction(deps, async (transaction) => {
    const locked = await sqlOne<Record<string, unknown>>(deps, LOCK_PAYMENT_AND_INVOICE, [paid.paymentNo], transaction);
    if (!locked) throw notFound('支付单不存在');
    const { payment, invoice } = splitLocked(locked);
    const invoiceNo = payment.invoice_no;
    if (!money(paid.amount).eq(payment.amount)) {
      deps.logger.error({ paymentNo: payment.payment_no, expected: payment.amount, reported: paid.amount }, 'gateway amount differs from the payment');
      throw new AppError(ErrorCode.PAYMENT_AMOUNT_MISMATCH, `支付金额与支付单金额不一致（支付单 ${payment.amount} 元）`);
    }
    if (isSettled(payment)) {
      if (payment.trade_no !== paid.tradeNo) {
        deps.logger.error({ paymentNo: payment.payment_no, recorded: payment.trade_no, reported: paid.tradeNo }, 'a second trade reported for a paid payment');
      }
      return { changed: false, payment, invoiceId: payment.invoice_id, invoiceNo, settlement: payment.settlement };
    }
    const toInvoice = payment.status === 'pending' && invoice.status === 'unpaid' && money(invoice.balance_amount).eq(payment.balance_part);
    const settlement = toInvoice ? 'invoice' : 'balance_credit';
    const updated = await sqlOne<PaymentRecord>(
      deps,
      MARK_PAID,
      [
        payment.id,
        paid.tradeNo.slice(0, 64),
        paid.source,
        paid.notifyId?.slice(0, 64) ?? null,
        settlement,
        intentKeys.paymentSignal(payment.payment_no),
        invoiceNo,
        OUTBOX_CHANNEL,
        paid.source === 'notify',
      ],
      transaction,
    );
    if (!updated) throw new Error('payment not updated');
    if (toInvoice) {
      const parts = { balance: money(payment.balance_part), thirdParty: money(payment.amount), paymentId: payment.id };
      await settleInvoice(deps, invoice, { ...parts, channel: parts.balance.gt(0) ? 'mixed' : 'qrpay' }, audit, transaction);
    } else {
      deps.logger.warn({ paymentNo: payment.payment_no, invoiceNo }, 'payment arrived for a closed payment or settled invoice; credited to the balance');
      const posted = await postAccountTransaction(
        deps,
        {
          userId: payment.user_id,
          type: 'recharge',
          amount: money(payment.amount),
          idempotencyKey: `late-payment:${payment.payment_no}`,
          invoiceId: payment.invoice_id,
          paymentId: payment.id,
          remark: `支付单 ${payment.payment_no} 在关闭后到账，金额转入余额`,
          audit,
        },
        transaction,
      );
      await insertRechargeRecord(
        deps,
        {
          userId: payment.user_id,
          invoiceId: payment.invoice_id,
          orderId: null,
          paymentId: payment.id,
          accountTransactionId: posted.id,
          scene: 'user_recharge',
          entryType: 'third_party',
          amount: formatMoney(payment.amount),
          remark: '支付单关闭后到账，转入余额',
          audit,
        },
        transaction,
      );
    }
    return { changed: true, payment: updated, invoiceId: payment.invoice_id, invoiceNo, settlement };
  });
}
