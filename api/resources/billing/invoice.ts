import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { INVOICE_STATUS_LABELS } from '../../../domain/billing/constants.js';
import { INVOICE_KINDS } from '../../../domain/billing/invoice-kinds.js';
import { INVOICE_STATUSES, INVOICE_TYPES, type InvoiceRecord, ORDER_STATUSES, ORDER_TYPES, PAYMENT_CHANNELS } from '../../../db/models/billing.js';
import { dateTimeString, moneyString } from '../../schemas.js';

/** The invoice columns a resource reads: a model instance or a raw money record both fit. */
export type InvoiceSource = Pick<
  InvoiceRecord,
  'id' | 'invoice_no' | 'user_id' | 'type' | 'status' | 'subject' | 'amount' | 'balance_amount' | 'third_party_amount' | 'refunded_amount' | 'payment_channel' | 'origin_invoice_id' | 'service_id' | 'payload' | 'due_at' | 'paid_at' | 'dispatched_at' | 'cancelled_at' | 'remark' | 'operator_type' | 'operator_id' | 'operator_name' | 'created_at'
>;

export type InvoiceItemSource = { description: string; unit_amount: string; quantity: number; amount: string };
export type OrderSource = { id: number; order_no: string; type: string; status: string; paid_at: Date | null };

const summaryShape = {
  id: z.number().int(),
  invoice_no: z.string(),
  type: z.enum(INVOICE_TYPES),
  type_label: z.string(),
  status: z.enum(INVOICE_STATUSES),
  status_label: z.string(),
  subject: z.string(),
  amount: moneyString,
  refunded_amount: moneyString,
  currency: z.literal('CNY'),
  paid_at: dateTimeString.nullable(),
  created_at: dateTimeString.nullable(),
};

export const invoiceSummarySchema = z.object(summaryShape).openapi('InvoiceSummary');

export function invoiceSummaryResource(invoice: InvoiceSource) {
  return {
    id: invoice.id,
    invoice_no: invoice.invoice_no,
    type: invoice.type,
    type_label: INVOICE_KINDS[invoice.type].label,
    status: invoice.status,
    status_label: INVOICE_STATUS_LABELS[invoice.status],
    subject: invoice.subject,
    amount: formatMoney(invoice.amount),
    refunded_amount: formatMoney(invoice.refunded_amount),
    currency: 'CNY' as const,
    paid_at: formatDateTime(invoice.paid_at),
    created_at: formatDateTime(invoice.created_at),
  };
}

const itemSchema = z.object({ description: z.string(), unit_amount: moneyString, quantity: z.number().int(), amount: moneyString });

const purchaseSchema = z
  .object({
    product_id: z.number().int(),
    product_name: z.string(),
    billing_period: z.string(),
    quantity: z.number().int(),
    config: z.array(z.string()).openapi({ description: '所选配置（名称：取值）' }),
  })
  .nullable();

const orderSchema = z.object({ id: z.number().int(), order_no: z.string(), type: z.enum(ORDER_TYPES), status: z.enum(ORDER_STATUSES), paid_at: dateTimeString.nullable() }).nullable();

const detailShape = {
  ...summaryShape,
  balance_amount: moneyString.openapi({ description: '余额支付部分（红字账单为负，表示退回余额的部分）' }),
  third_party_amount: moneyString.openapi({ description: '第三方支付部分（红字账单为负，表示原路退回的部分）' }),
  payment_channel: z.enum(PAYMENT_CHANNELS).nullable(),
  origin_invoice_id: z.number().int().nullable().openapi({ description: '红字（退款）账单指向的原账单' }),
  service_id: z.number().int().nullable(),
  due_at: dateTimeString.nullable(),
  cancelled_at: dateTimeString.nullable(),
  items: z.array(itemSchema),
  purchase: purchaseSchema,
  order: orderSchema,
};

export const invoiceDetailSchema = z.object(detailShape).openapi('InvoiceDetail');

function purchaseOf(invoice: InvoiceSource) {
  if (invoice.type !== 'purchase') return null;
  const p = invoice.payload;
  const config = (p.config ?? {}) as Record<string, { label?: unknown }>;
  return {
    product_id: Number(p.product_id),
    product_name: String(p.product_name ?? ''),
    billing_period: String(p.billing_period ?? ''),
    quantity: Number(p.quantity ?? 1),
    config: Object.values(config).map((c) => String(c?.label ?? '')),
  };
}

/** The client's invoice detail: no raw status, no payload internals, no audit fields. */
export function invoiceDetailResource(invoice: InvoiceSource, items: InvoiceItemSource[], order: OrderSource | null) {
  return {
    ...invoiceSummaryResource(invoice),
    balance_amount: formatMoney(invoice.balance_amount),
    third_party_amount: formatMoney(invoice.third_party_amount),
    payment_channel: (invoice.payment_channel ?? null) as (typeof PAYMENT_CHANNELS)[number] | null,
    origin_invoice_id: invoice.origin_invoice_id,
    service_id: invoice.service_id,
    due_at: formatDateTime(invoice.due_at),
    cancelled_at: formatDateTime(invoice.cancelled_at),
    items: items.map((i) => ({ description: i.description, unit_amount: formatMoney(i.unit_amount), quantity: i.quantity, amount: formatMoney(i.amount) })),
    purchase: purchaseOf(invoice),
    order: order
      ? {
          id: order.id,
          order_no: order.order_no,
          type: order.type as (typeof ORDER_TYPES)[number],
          status: order.status as (typeof ORDER_STATUSES)[number],
          paid_at: formatDateTime(order.paid_at),
        }
      : null,
  };
}

export const adminInvoiceSummarySchema = z
  .object({ ...summaryShape, user_id: z.number().int(), payment_channel: z.enum(PAYMENT_CHANNELS).nullable(), origin_invoice_id: z.number().int().nullable() })
  .openapi('AdminInvoiceSummary');

export function adminInvoiceSummaryResource(invoice: InvoiceSource) {
  return {
    ...invoiceSummaryResource(invoice),
    user_id: invoice.user_id,
    payment_channel: (invoice.payment_channel ?? null) as (typeof PAYMENT_CHANNELS)[number] | null,
    origin_invoice_id: invoice.origin_invoice_id,
  };
}

export const adminInvoiceDetailSchema = z
  .object({
    ...detailShape,
    user_id: z.number().int(),
    dispatched_at: dateTimeString.nullable().openapi({ description: '履约（开通、续费等）派发时间' }),
    remark: z.string(),
    operator_type: z.string(),
    operator_id: z.number().int().nullable(),
    operator_name: z.string(),
  })
  .openapi('AdminInvoiceDetail');

export function adminInvoiceDetailResource(invoice: InvoiceSource, items: InvoiceItemSource[], order: OrderSource | null) {
  return {
    ...invoiceDetailResource(invoice, items, order),
    user_id: invoice.user_id,
    dispatched_at: formatDateTime(invoice.dispatched_at),
    remark: invoice.remark,
    operator_type: invoice.operator_type,
    operator_id: invoice.operator_id,
    operator_name: invoice.operator_name,
  };
}
