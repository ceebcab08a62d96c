import { formatMoney } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { INVOICE_COLUMNS, ORDER_COLUMNS, type InvoiceRecord, type InvoiceStatus, type InvoiceType, type OrderRecord, type PaymentChannel } from '../../../db/models/billing.js';
import { INVOICE_KINDS } from '../invoice-kinds.js';
import { sqlOne, sqlRows, type Tx } from '../../../db/sql.js';

export type InvoiceItemInput = { key: string; description: string; unitAmount: string; quantity: number; amount: string };

/** The order of an invoice whose kind has one; its type is the kind's `orderType`. */
export type OrderInput = {
  productId: number | null;
  serviceId?: number | null;
  billingPeriod: string;
  quantity: number;
  config: Record<string, unknown>;
};

export type InsertInvoiceInput = {
  userId: number;
  type: InvoiceType;
  status: InvoiceStatus;
  subject: string;
  amount: string;
  balanceAmount?: string;
  thirdPartyAmount?: string;
  paymentChannel?: PaymentChannel | null;
  originInvoiceId?: number | null;
  serviceId?: number | null;
  payload?: Record<string, unknown>;
  dueAt?: Date | null;
  /** Settled at creation (admin documents, red entries): paid and dispatched now. */
  settled?: boolean;
  remark?: string;
  items: InvoiceItemInput[];
  order?: OrderInput;
  audit: Audit;
};

export type InsertedInvoice = { invoice: InvoiceRecord; order: OrderRecord | null };

/**
 * Writes an invoice with its items (and its order, for a kind with an `orderType`) in the
 * caller's transaction; the invoice number comes from the database.
 */
export async function insertInvoice(deps: DomainDeps, input: InsertInvoiceInput, transaction: Tx): Promise<InsertedInvoice> {
  const orderType = INVOICE_KINDS[input.type].orderType;
  if (input.order && orderType === null) throw new Error(`a ${input.type} invoice has no order`);
  const { operator, traceId } = input.audit;
  const invoice = await sqlOne<InvoiceRecord>(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, third_party_amount, payment_channel,
        origin_invoice_id, service_id, payload, due_at, paid_at, dispatched_at, remark, operator_type, operator_id, operator_name, trace_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
        CASE WHEN $13::boolean THEN now() END, CASE WHEN $13::boolean THEN now() END, $14, $15, $16, $17, $18)
     RETURNING ${INVOICE_COLUMNS}`,
    [
      input.userId,
      input.type,
      input.status,
      input.subject.slice(0, 128),
      input.amount,
      input.balanceAmount ?? '0.00',
      input.thirdPartyAmount ?? '0.00',
      input.paymentChannel ?? null,
      input.originInvoiceId ?? null,
      input.serviceId ?? null,
      JSON.stringify(input.payload ?? {}),
      input.dueAt ?? null,
      input.settled === true,
      (input.remark ?? '').slice(0, 255),
      operator.type,
      operator.id,
      operator.name,
      traceId,
    ],
    transaction,
  );
  if (!invoice) throw new Error('invoice not written');
  if (input.items.length > 0) {
    const values: string[] = [];
    const bind: unknown[] = [];
    input.items.forEach((item, i) => {
      const at = bind.length;
      values.push(`($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7})`);
      bind.push(invoice.id, item.key.slice(0, 64), item.description.slice(0, 255), formatMoney(item.unitAmount), item.quantity, formatMoney(item.amount), i);
    });
    await sqlRows(
      deps,
      `INSERT INTO invoice_items (invoice_id, item_key, description, unit_amount, quantity, amount, sort_order) VALUES ${values.join(', ')} RETURNING id`,
      bind,
      transaction,
    );
  }
  let order: OrderRecord | null = null;
  if (input.order) {
    order = await sqlOne<OrderRecord>(
      deps,
      `INSERT INTO orders (user_id, invoice_id, type, status, product_id, service_id, amount, billing_period, quantity, config)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9)
       RETURNING ${ORDER_COLUMNS}`,
      [
        input.userId,
        invoice.id,
        orderType,
        input.order.productId,
        input.order.serviceId ?? null,
        input.amount,
        input.order.billingPeriod,
        input.order.quantity,
        JSON.stringify(input.order.config),
      ],
      transaction,
    );
  }
  return { invoice, order };
}
