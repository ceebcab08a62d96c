import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { lockInvoice } from '../invoices/lock-invoice.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import type { PaymentRecord } from '../../../db/models/billing.js';

/**
 * A closed mixed payment gives its balance part back: a positive `payment_reversal`
 * transaction (keyed by the payment number: once) and the invoice's balance part back to 0.
 * The caller holds the payment row lock.
 */
export async function reverseBalancePart(deps: DomainDeps, payment: PaymentRecord, audit: Audit, transaction: Tx): Promise<void> {
  const part = money(payment.balance_part);
  if (part.lte(0)) return;
  const invoice = await lockInvoice(deps, payment.invoice_id, null, transaction);
  await postAccountTransaction(
    deps,
    {
      userId: payment.user_id,
      type: 'payment_reversal',
      amount: part,
      idempotencyKey: `qr-balance-reversal:${payment.payment_no}`,
      invoiceId: payment.invoice_id,
      paymentId: payment.id,
      remark: `扫码支付未完成，退回余额抵扣：${invoice.subject}`,
      audit,
    },
    transaction,
  );
  if (invoice.status === 'unpaid') {
    await sqlOne(
      deps,
      'UPDATE invoices SET balance_amount = GREATEST(balance_amount - $2, 0), updated_at = now() WHERE id = $1 RETURNING id',
      [invoice.id, formatMoney(part)],
      transaction,
    );
  }
}
