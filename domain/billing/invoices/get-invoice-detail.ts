import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { INVOICE_COLUMNS, ORDER_COLUMNS, type InvoiceRecord, type OrderRecord } from '../../../db/models/billing.js';

export type InvoiceItemRecord = { description: string; unit_amount: string; quantity: number; amount: string };

export type InvoiceDetail = { invoice: InvoiceRecord; items: InvoiceItemRecord[]; order: OrderRecord | null };

/** An invoice with its items and order; `userId` limits it to its owner (40400 for anyone else). */
export async function getInvoiceDetail(deps: DomainDeps, id: number, userId?: number): Promise<InvoiceDetail> {
  const [invoice, items, order] = await Promise.all([
    sqlOne<InvoiceRecord>(deps, `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 AND ($2::int IS NULL OR user_id = $2)`, [id, userId ?? null]),
    sqlRows<InvoiceItemRecord>(deps, 'SELECT description, unit_amount, quantity, amount FROM invoice_items WHERE invoice_id = $1 ORDER BY sort_order, id', [id]),
    sqlOne<OrderRecord>(deps, `SELECT ${ORDER_COLUMNS} FROM orders WHERE invoice_id = $1`, [id]),
  ]);
  if (!invoice) throw notFound('账单不存在');
  return { invoice, items, order };
}

/** Items and order of an invoice already in hand (e.g. the record a payment just settled). */
export async function withInvoiceDetail(deps: DomainDeps, invoice: InvoiceRecord): Promise<InvoiceDetail> {
  const [items, order] = await Promise.all([
    sqlRows<InvoiceItemRecord>(deps, 'SELECT description, unit_amount, quantity, amount FROM invoice_items WHERE invoice_id = $1 ORDER BY sort_order, id', [invoice.id]),
    sqlOne<OrderRecord>(deps, `SELECT ${ORDER_COLUMNS} FROM orders WHERE invoice_id = $1`, [invoice.id]),
  ]);
  return { invoice, items, order };
}
