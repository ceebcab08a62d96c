import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { sqlOne, type Tx } from '../sql.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from './invoice-record.js';

/** The invoice, row-locked; `userId` restricts it to its owner (others see 40400, never another's invoice). */
export async function lockInvoice(deps: DomainDeps, id: number, userId: number | null, transaction: Tx): Promise<InvoiceRecord> {
  const invoice = await sqlOne<InvoiceRecord>(
    deps,
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 AND ($2::int IS NULL OR user_id = $2) FOR UPDATE`,
    [id, userId],
    transaction,
  );
  if (!invoice) throw notFound('账单不存在');
  return invoice;
}
