import type { Decimal } from 'decimal.js';
import { AppError, ErrorCode } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import type { TransactionType } from '../../../db/models/billing.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import { lockAccount, type LockedAccount } from './lock-account.js';

export type PostTransactionInput = {
  userId: number;
  type: TransactionType;
  /** Signed: positive credits the balance, negative debits it. */
  amount: Decimal;
  /** Unique per effect (e.g. `invoice-balance:INV…`): the same effect can never be booked twice. */
  idempotencyKey: string;
  invoiceId?: number | null;
  paymentId?: number | null;
  refundId?: number | null;
  remark?: string;
  audit: Audit;
  /** The account as the caller already locked it in this transaction (else it is locked here). */
  locked?: LockedAccount;
};

export type PostedTransaction = { id: number; balance_before: string; balance_after: string; seq: number };

/**
 * Books one signed movement of the user's cash account, under the account's row lock, in the
 * caller's transaction. A debit that would take the balance below zero is refused (40911),
 * except an admin deduction. The database checks the rest (see migration 0004).
 */
export async function postAccountTransaction(deps: DomainDeps, input: PostTransactionInput, transaction: Tx): Promise<PostedTransaction> {
  const account = input.locked ?? (await lockAccount(deps, input.userId, transaction));
  const before = money(account.balance);
  const after = before.plus(input.amount);
  if (input.amount.isNegative() && after.isNegative() && input.type !== 'admin_deduction') {
    throw new AppError(ErrorCode.INSUFFICIENT_BALANCE, `账户余额不足：当前余额 ${formatMoney(before)} 元，需要 ${formatMoney(input.amount.abs())} 元`, {
      balance: formatMoney(before),
      required: formatMoney(input.amount.abs()),
    });
  }
  const { operator, traceId } = input.audit;
  const row = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO account_transactions
       (user_id, seq, type, amount, balance_before, balance_after, invoice_id, payment_id, refund_id, idempotency_key,
        remark, operator_type, operator_id, operator_name, trace_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
    [
      input.userId,
      account.last_seq + 1,
      input.type,
      formatMoney(input.amount),
      formatMoney(before),
      formatMoney(after),
      input.invoiceId ?? null,
      input.paymentId ?? null,
      input.refundId ?? null,
      input.idempotencyKey,
      (input.remark ?? '').slice(0, 255),
      operator.type,
      operator.id,
      operator.name,
      traceId,
    ],
    transaction,
  );
  if (!row) throw new Error('account transaction not written');
  return { id: row.id, balance_before: formatMoney(before), balance_after: formatMoney(after), seq: account.last_seq + 1 };
}
