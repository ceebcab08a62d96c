import { AppError, ErrorCode, validationError } from '../../../lib/errors.js';
import { money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { INVOICE_KINDS } from '../invoice-kinds.js';
import { lockInvoice, pendingPaymentNo } from '../invoices/lock-invoice.js';
import { assertPayable } from '../invoices/payable-check.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { inTransaction, sqlOne, statement, qualified } from '../../../db/sql.js';
import { settleInvoice } from './settle-invoice.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/billing.js';
import type { InvoiceItemRecord } from '../invoices/get-invoice-detail.js';

/**
 * The owner's invoice and their cash account, both row-locked by one statement (invoice first,
 * then account: the order every money path keeps), with the number of a pending QR payment of
 * the invoice and the invoice's items (for the answer; they never change once written). No row:
 * not the user's invoice, or a user without an account yet (`lockInvoice` and
 * `postAccountTransaction` then take the long way, which opens it).
 */
const LOCK_INVOICE_AND_ACCOUNT = statement(
  `SELECT ${qualified(INVOICE_COLUMNS, 'i')},
          ${pendingPaymentNo('i')},
          a.balance AS account_balance, a.last_seq AS account_last_seq,
          (SELECT COALESCE(json_agg(json_build_object('description', t.description, 'unit_amount', t.unit_amount::text, 'quantity', t.quantity,
                                                      'amount', t.amount::text) ORDER BY t.sort_order, t.id), '[]'::json)
             FROM invoice_items t WHERE t.invoice_id = i.id) AS items
     FROM invoices i JOIN user_accounts a ON a.user_id = i.user_id
    WHERE i.id = $1 AND i.user_id = $2
      FOR UPDATE OF i, a`,
);

type LockedForBalance = InvoiceRecord & { pending_payment_no: string | null; account_balance: string; account_last_seq: number; items: InvoiceItemRecord[] };

/**
 * Pays the user's unpaid invoice from the cash balance: invoice row lock, then the account
 * row lock, one negative `payment` transaction keyed by the invoice number, the invoice
 * settled, all in one transaction. Paying again answers 40910 (settled once); not enough
 * balance 40911; a QR payment still pending for the invoice 40913. The settlement records the
 * fulfilment as its outbox row, due at once; the relay (in the worker processes, woken by the
 * commit's NOTIFY) starts it: nothing here waits on or calls Temporal. Answers the settled
 * invoice with its items.
 */
export async function payInvoiceByBalance(
  deps: DomainDeps,
  input: { userId: number; invoiceId: number },
  audit: Audit,
): Promise<{ invoice: InvoiceRecord; items: InvoiceItemRecord[] | null }> {
  const settled = await inTransaction(deps, async (transaction) => {
    const both = await sqlOne<LockedForBalance>(deps, LOCK_INVOICE_AND_ACCOUNT, [input.invoiceId, input.userId], transaction);
    const { account_balance: balance, account_last_seq: lastSeq, items, ...invoice }: Partial<LockedForBalance> & InvoiceRecord & { pending_payment_no?: string | null } =
      both ?? (await lockInvoice(deps, input.invoiceId, input.userId, transaction, { withPendingPayment: true }));
    assertPayable(invoice);
    if (!INVOICE_KINDS[invoice.type].payableFromBalance) {
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
          ...(both ? { locked: { user_id: invoice.user_id, balance: balance as string, last_seq: lastSeq as number } } : {}),
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
    return { invoice: result.invoice, items: items ?? null };
  });
  // Tests only: the answer held after the commit, so a crash test can kill the process in between.
  if (deps.config.testHoldAfterCommitMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.config.testHoldAfterCommitMs));
  return settled;
}
