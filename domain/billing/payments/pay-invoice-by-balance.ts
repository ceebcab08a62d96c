import { AppError, ErrorCode, validationError } from '../../../lib/errors.js';
import { money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { BALANCE_PAYABLE_TYPES } from '../constants.js';
import { dispatchAfterCommit } from '../fulfilment/dispatch-fulfilment.js';
import { lockInvoice } from '../invoices/lock-invoice.js';
import { assertPayable } from '../invoices/payable-check.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { inTransaction } from '../../../db/sql.js';
import { settleInvoice } from './settle-invoice.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';

/**
 * Pays the user's unpaid invoice from the cash balance: invoice row lock, then the account
 * row lock, one negative `payment` transaction keyed by the invoice number, the invoice
 * settled, all in one transaction. Paying again answers 40910 (settled once); not enough
 * balance 40911; a QR payment still pending for the invoice 40913. The settlement records the
 * fulfilment in the outbox; this process then tries the dispatch at once without holding up the
 * answer, and the relay does it if this process fails or dies first.
 */
export async function payInvoiceByBalance(deps: DomainDeps, input: { userId: number; invoiceId: number }, audit: Audit): Promise<InvoiceRecord> {
  const settled = await inTransaction(deps, async (transaction) => {
    const invoice = await lockInvoice(deps, input.invoiceId, input.userId, transaction, { withPendingPayment: true });
    assertPayable(invoice);
    if (!BALANCE_PAYABLE_TYPES.includes(invoice.type)) {
      throw validationError({ invoice: ['充值账单只能通过扫码支付'] }, '充值账单只能通过扫码支付');
    }
    if (invoice.pending_payment_no) throw new AppError(ErrorCode.PAYMENT_IN_PROGRESS, undefined, { payment_no: invoice.pending_payment_no });
    const amount = money(invoice.amount);
    if (amount.gt(0)) {
      await postAccountTransaction(
        deps,
        {
          userId: invoice.user_id,
          type: 'payment',
          amount: amount.negated(),
          idempotencyKey: `invoice-balance:${invoice.invoice_no}`,
          invoiceId: invoice.id,
          remark: `余额支付：${invoice.subject}`,
          audit,
        },
        transaction,
      );
    }
    const result = await settleInvoice(
      deps,
      invoice,
      { balance: amount, thirdParty: money(0), channel: amount.gt(0) ? 'balance' : 'free', paymentId: null },
      audit,
      transaction,
    );
    return result.invoice;
  });
  if (deps.config.testHoldAfterCommitMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.config.testHoldAfterCommitMs));
  dispatchAfterCommit(deps, settled.id);
  return settled;
}
