import type { InvoiceItemRow, InvoiceRow, OrderRow } from '../../../db/models/money.js';
import type { DomainDeps } from '../../deps.js';
import { findDocument } from '../lists/list-documents.js';

export type InvoiceDetail = { invoice: InvoiceRow; items: InvoiceItemRow[]; order: OrderRow | null };

/** An invoice with its items and order; `userId` limits it to its owner (40400 for anyone else). */
export async function getInvoiceDetail(deps: DomainDeps, id: number, userId?: number): Promise<InvoiceDetail> {
  const { Invoice, InvoiceItem, Order } = deps.db.models;
  const invoice = await findDocument(Invoice, id, '账单', userId);
  const [items, order] = await Promise.all([
    InvoiceItem.findAll({ where: { invoice_id: invoice.id }, order: [['sort_order', 'ASC'], ['id', 'ASC']] }),
    Order.findOne({ where: { invoice_id: invoice.id } }),
  ]);
  return { invoice, items, order };
}
