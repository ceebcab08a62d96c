import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/billing.js';

/** The number of the invoice's pending QR payment, if any, as a column of a SELECT over `invoices` under `alias`. */
export function pendingPaymentNo(alias: string): string {
  return `(SELECT p.payment_no FROM payments p WHERE p.invoice_id = ${alias}.id AND p.status = 'pending') AS pending_payment_no`;
}

/**
 * The invoice, row-locked; `userId` restricts it to its owner (others see 40400, never another's
 * invoice). `withPendingPayment` also answers the number of its pending QR payment, if any.
 */
export async function lockInvoice(
  deps: DomainDeps,
  id: number,
  userId: number | null,
  transaction: Tx,
  options: { withPendingPayment?: boolean } = {},
): Promise<InvoiceRecord & { pending_payment_no?: string | null }> {
  const pending = options.withPendingPayment ? `, ${pendingPaymentNo('invoices')}` : '';
  const invoice = await sqlOne<InvoiceRecord & { pending_payment_no?: string | null }>(
    deps,
    `SELECT ${INVOICE_COLUMNS}${pending} FROM invoices WHERE id = $1 AND ($2::int IS NULL OR user_id = $2) FOR UPDATE`,
    [id, userId],
    transaction,
  );
  if (!invoice) throw notFound('账单不存在');
  return invoice;
}
