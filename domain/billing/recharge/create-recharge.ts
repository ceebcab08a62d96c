import type { Decimal } from 'decimal.js';
import { validationError } from '../../../lib/errors.js';
import { formatMoney } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { RECHARGE_MAX_AMOUNT, RECHARGE_MIN_AMOUNT } from '../constants.js';
import { insertInvoice } from '../invoices/insert-invoice.js';
import { startQrPayment, type QrPaymentStart } from '../payments/start-qr-payment.js';
import { inTransaction } from '../../../db/sql.js';

/**
 * A user recharge: a `recharge` invoice for the amount (1.00 to 50000.00 yuan), paid by QR
 * straight away (same payment, workflow and settlement as any invoice). Once paid, the
 * settlement credits the balance and writes a `user_recharge` recharge record.
 */
export async function createRecharge(deps: DomainDeps, input: { userId: number; amount: Decimal }, audit: Audit): Promise<QrPaymentStart & { invoiceId: number }> {
  if (input.amount.lt(RECHARGE_MIN_AMOUNT) || input.amount.gt(RECHARGE_MAX_AMOUNT)) {
    throw validationError({ amount: [`充值金额必须在 ${RECHARGE_MIN_AMOUNT} 到 ${RECHARGE_MAX_AMOUNT} 元之间`] });
  }
  const amount = formatMoney(input.amount);
  const { invoice } = await inTransaction(deps, (transaction) =>
    insertInvoice(
      deps,
      {
        userId: input.userId,
        type: 'recharge',
        status: 'unpaid',
        subject: `账户充值 ${amount} 元`,
        amount,
        items: [{ key: 'recharge', description: '账户余额充值', unitAmount: amount, quantity: 1, amount }],
        audit,
      },
      transaction,
    ),
  );
  const started = await startQrPayment(deps, { userId: input.userId, invoiceId: invoice.id, useBalance: false }, audit);
  return { ...started, invoiceId: invoice.id };
}
