import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { sqlOne, sqlRows, statement } from '../../../db/sql.js';
import { INVOICE_COLUMNS, ORDER_COLUMNS, type InvoiceRecord, type OrderRecord } from '../../../db/models/billing.js';

export type InvoiceItemRecord = { description: string; unit_amount: string; quantity: number; amount: string };

export type InvoiceDetail = { invoice: InvoiceRecord; items: InvoiceItemRecord[]; order: OrderRecord | null };

const ITEMS = statement('SELECT description, unit_amount, quantity, amount FROM invoice_items WHERE invoice_id = $1 ORDER BY sort_order, id');
const ORDER = statement(`SELECT ${ORDER_COLUMNS} FROM orders WHERE invoice_id = $1`);

/** An invoice with its items and order; `userId` limits it to its owner (40400 for anyone else). */
export async function getInvoiceDetail(deps: DomainDeps, id: number, userId?: number): Promise<InvoiceDetail> {
  const [invoice, items, order] = await Promise.all([
    sqlOne<InvoiceRecord>(deps, `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 AND ($2::int IS NULL OR user_id = $2)`, [id, userId ?? null]),
    sqlRows<InvoiceItemRecord>(deps, ITEMS, [id]),
    sqlOne<OrderRecord>(deps, ORDER, [id]),
  ]);
  if (!invoice) throw notFound('账单不存在');
  return { invoice, items, order };
}

/** Items and order of an invoice already in hand (e.g. the record a payment just settled); items too when known. */
export async function withInvoiceDetail(deps: DomainDeps, invoice: InvoiceRecord, knownItems: InvoiceItemRecord[] | null = null): Promise<InvoiceDetail> {
  const [items, order] = await Promise.all([knownItems ?? sqlRows<InvoiceItemRecord>(deps, ITEMS, [invoice.id]), sqlOne<OrderRecord>(deps, ORDER, [invoice.id])]);
  return { invoice, items, order };
}
