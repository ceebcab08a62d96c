import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { insertInvoice } from '../invoices/insert-invoice.js';
import { lockInvoice } from '../invoices/lock-invoice.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import { onCommit } from '../../../db/commit-hooks.js';
import { REFUND_COLUMNS, type RefundRecord } from '../../../db/models/billing.js';
import { label, refundsRecorded } from '../../../lib/metrics.js';
import { clawBackCommissions } from '../../marketing/commissions.js';

export type RefundDocuments = { refund: RefundRecord; refundInvoiceId: number; accountTransactionId: number | null; rechargeRecordId: number | null };

/**
 * Writes what a refund leaves behind, in the caller's transaction (refund, payment and invoice
 * rows locked in that order): the red-entry `refund` invoice (negative amount, its parts
 * negative as the money went back: to the balance, through the gateway), a positive `refund`
 * transaction for everything that goes to the balance, a negative offset recharge record for
 * the third-party part against the payment's original recharge record (never above what is
 * left of it; none for a balance-paid part), the original invoice's refunded amount and
 * status, and the order and payment statuses named in `scope`.
 */
export async function completeRefund(deps: DomainDeps, refund: RefundRecord, audit: Audit, transaction: Tx): Promise<RefundDocuments> {
  if (refund.payment_id !== null) await sqlOne(deps, 'SELECT id FROM payments WHERE id = $1 FOR UPDATE', [refund.payment_id], transaction);
  const invoice = await lockInvoice(deps, refund.invoice_id, null, transaction);
  const total = money(refund.amount);
  const thirdParty = money(refund.third_party_part);
  const toBalance = refund.refund_method === 'balance' ? total : money(refund.balance_part);
  const throughGateway = total.minus(toBalance);

  const { invoice: redEntry } = await insertInvoice(
    deps,
    {
      userId: refund.user_id,
      type: 'refund',
      status: 'paid',
      settled: true,
      subject: `退款：${invoice.subject}`.slice(0, 128),
      amount: formatMoney(total.negated()),
      balanceAmount: formatMoney(toBalance.negated()),
      thirdPartyAmount: formatMoney(throughGateway.negated()),
      paymentChannel: refund.refund_method === 'balance' ? 'balance' : throughGateway.gt(0) && toBalance.gt(0) ? 'mixed' : 'qrpay',
      originInvoiceId: invoice.id,
      serviceId: invoice.service_id,
      payload: { refund_no: refund.refund_no, refund_method: refund.refund_method },
      remark: refund.reason,
      items: [{ key: 'refund', description: `退款 ${refund.refund_no}`, unitAmount: formatMoney(total.negated()), quantity: 1, amount: formatMoney(total.negated()) }],
      audit,
    },
    transaction,
  );

  let accountTransactionId: number | null = null;
  if (toBalance.gt(0)) {
    const posted = await postAccountTransaction(
      deps,
      {
        userId: refund.user_id,
        type: 'refund',
        amount: toBalance,
        idempotencyKey: `refund:${refund.refund_no}`,
        invoiceId: redEntry.id,
        paymentId: refund.payment_id,
        refundId: refund.id,
        remark: `退款到余额：${invoice.subject}`,
        audit,
      },
      transaction,
    );
    accountTransactionId = posted.id;
  }

  let rechargeRecordId: number | null = null;
  if (thirdParty.gt(0) && refund.payment_id !== null) {
    const original = await sqlOne<{ id: number; amount: string; offset_amount: string; order_id: number | null; entry_type: string }>(
      deps,
      `SELECT id, amount, offset_amount, order_id, entry_type FROM recharge_records WHERE payment_id = $1 AND direction = 'in' FOR UPDATE`,
      [refund.payment_id],
      transaction,
    );
    if (original) {
      const offsettable = money(original.amount).minus(original.offset_amount);
      const offset = thirdParty.gt(offsettable) ? offsettable : thirdParty;
      if (offset.gt(0)) {
        const row = await sqlOne<{ id: number }>(
          deps,
          `INSERT INTO recharge_records (user_id, order_id, invoice_id, payment_id, account_transaction_id, refund_id, origin_recharge_record_id,
              scene, direction, entry_type, amount, remark, reason, operator_type, operator_id, operator_name, trace_id)
           VALUES ($1, $2, $3, NULL, NULL, $4, $5, 'refund', 'out', $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
          [
            refund.user_id,
            original.order_id,
            redEntry.id,
            refund.id,
            original.id,
            original.entry_type,
            formatMoney(offset.negated()),
            `退款冲减：${refund.refund_no}`,
            refund.reason,
            audit.operator.type,
            audit.operator.id,
            audit.operator.name,
            audit.traceId,
          ],
          transaction,
        );
        rechargeRecordId = row?.id ?? null;
      }
    }
  }

  const refunded = money(invoice.refunded_amount).plus(total);
  const fully = refunded.eq(invoice.amount);
  await sqlOne(
    deps,
    'UPDATE invoices SET refunded_amount = $2, status = $3, updated_at = now() WHERE id = $1 RETURNING id',
    [invoice.id, formatMoney(refunded), fully ? 'refunded' : 'partially_refunded'],
    transaction,
  );
  if (fully && refund.scope.includes('order')) {
    await sqlOne(deps, `UPDATE orders SET status = 'refunded', updated_at = now() WHERE invoice_id = $1 RETURNING id`, [invoice.id], transaction);
  }
  if (thirdParty.gt(0) && refund.payment_id !== null && refund.scope.includes('payment')) {
    await sqlOne(
      deps,
      `UPDATE payments SET refunded_amount = refunded_amount + $2,
          status = CASE WHEN refunded_amount + $2 >= amount THEN 'refunded' ELSE 'partially_refunded' END, updated_at = now()
        WHERE id = $1 RETURNING id`,
      [refund.payment_id, formatMoney(thirdParty)],
      transaction,
    );
  }
  const done = await sqlOne<RefundRecord>(
    deps,
    `UPDATE refunds SET status = 'succeeded', refunded_at = now(), refund_invoice_id = $2, updated_at = now() WHERE id = $1 RETURNING ${REFUND_COLUMNS}`,
    [refund.id, redEntry.id],
    transaction,
  );
  if (!done) throw new Error('refund not completed');
  // Counted once the refund commits (docs/operations.md "Metrics").
  onCommit(transaction, () => refundsRecorded.inc({ destination: label(refund.refund_method), outcome: 'completed' }));
  // The referrer's commission on this invoice shrinks with it (`clawback:<refund_no>`, UNIQUE).
  await clawBackCommissions(deps, invoice.id, transaction);
  return { refund: done, refundInvoiceId: redEntry.id, accountTransactionId, rechargeRecordId };
}
