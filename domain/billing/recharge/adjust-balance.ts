import type { Decimal } from 'decimal.js';
import { notFound, validationError } from '../../../lib/errors.js';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { ADJUSTMENT_MAX_AMOUNT, ADMIN_RECHARGE_REMARK } from '../constants.js';
import { insertInvoice } from '../invoices/insert-invoice.js';
import { insertRechargeRecord } from '../ledger/insert-recharge-record.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';

export type BalanceAdjustment = {
  invoiceId: number;
  invoiceNo: string;
  accountTransactionId: number;
  rechargeRecordId: number | null;
  direction: 'increase' | 'decrease';
  amount: string;
  balanceAfter: string;
  userId: number;
};

/**
 * An admin's balance adjustment (spec: Finance documents). Positive: a `recharge` invoice
 * (settled, channel `admin`, the amount as its non-balance part), a positive `admin_recharge`
 * transaction and an `admin_recharge` recharge record with the fixed remark plus operator, time
 * and reason. Negative: a `deduction` invoice (settled from the balance), a negative
 * `admin_deduction` transaction (it may take the balance below zero), no recharge record.
 * Everything in one transaction.
 */
export async function adjustBalance(deps: DomainDeps, input: { userId: number; amount: Decimal; remark: string }, audit: Audit): Promise<BalanceAdjustment> {
  if (input.amount.isZero()) throw validationError({ amount: ['调整金额不能为 0'] });
  if (input.amount.abs().gt(ADJUSTMENT_MAX_AMOUNT)) throw validationError({ amount: [`单次调整金额不能超过 ${ADJUSTMENT_MAX_AMOUNT} 元`] });
  const increase = input.amount.gt(0);
  const amount = formatMoney(input.amount.abs());
  return inTransaction(deps, async (transaction) => {
    const user = await sqlOne<{ id: number }>(deps, 'SELECT id FROM users WHERE id = $1', [input.userId], transaction);
    if (!user) throw notFound('用户不存在');
    const { invoice } = await insertInvoice(
      deps,
      {
        userId: input.userId,
        type: increase ? 'recharge' : 'deduction',
        status: 'paid',
        settled: true,
        subject: increase ? `后台充值 ${amount} 元` : `后台扣款 ${amount} 元`,
        amount,
        balanceAmount: increase ? '0.00' : amount,
        thirdPartyAmount: increase ? amount : '0.00',
        paymentChannel: 'admin',
        remark: input.remark,
        items: [{ key: increase ? 'admin_recharge' : 'admin_deduction', description: increase ? '管理员后台充值' : '管理员后台扣款', unitAmount: amount, quantity: 1, amount }],
        audit,
      },
      transaction,
    );
    const posted = await postAccountTransaction(
      deps,
      {
        userId: input.userId,
        type: increase ? 'admin_recharge' : 'admin_deduction',
        amount: input.amount,
        idempotencyKey: `admin-adjust:${invoice.invoice_no}`,
        invoiceId: invoice.id,
        remark: input.remark,
        audit,
      },
      transaction,
    );
    let rechargeRecordId: number | null = null;
    if (increase) {
      rechargeRecordId = await insertRechargeRecord(
        deps,
        {
          userId: input.userId,
          invoiceId: invoice.id,
          orderId: null,
          paymentId: null,
          accountTransactionId: posted.id,
          scene: 'admin_recharge',
          entryType: 'admin',
          amount,
          remark: `${ADMIN_RECHARGE_REMARK}（操作人：${audit.operator.name}，时间：${formatDateTime(new Date())}）`,
          reason: input.remark,
          audit,
        },
        transaction,
      );
    }
    return {
      invoiceId: invoice.id,
      invoiceNo: invoice.invoice_no,
      accountTransactionId: posted.id,
      rechargeRecordId,
      direction: increase ? 'increase' : 'decrease',
      amount,
      balanceAfter: posted.balance_after,
      userId: input.userId,
    };
  });
}
