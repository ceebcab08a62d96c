import type { InvoiceStatus, InvoiceType, OperatorType, OrderStatus, OrderType, PaymentChannel } from '../../../db/models/money.js';

/** An invoice row as the raw money SQL reads it (money columns as two-digit strings). */
export type InvoiceRecord = {
  id: number;
  invoice_no: string;
  user_id: number;
  type: InvoiceType;
  status: InvoiceStatus;
  subject: string;
  amount: string;
  balance_amount: string;
  third_party_amount: string;
  refunded_amount: string;
  currency: 'CNY';
  payment_channel: PaymentChannel | null;
  origin_invoice_id: number | null;
  service_id: number | null;
  payload: Record<string, unknown>;
  due_at: Date | null;
  paid_at: Date | null;
  dispatched_at: Date | null;
  cancelled_at: Date | null;
  remark: string;
  operator_type: OperatorType;
  operator_id: number | null;
  operator_name: string;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export type OrderRecord = {
  id: number;
  order_no: string;
  user_id: number;
  invoice_id: number;
  type: OrderType;
  status: OrderStatus;
  product_id: number | null;
  service_id: number | null;
  amount: string;
  billing_period: string;
  quantity: number;
  config: Record<string, unknown>;
  paid_at: Date | null;
};

export const INVOICE_COLUMNS = `id, invoice_no, user_id, type, status, subject, amount, balance_amount, third_party_amount, refunded_amount,
  currency, payment_channel, origin_invoice_id, service_id, payload, due_at, paid_at, dispatched_at, cancelled_at, remark,
  operator_type, operator_id, operator_name, trace_id, created_at, updated_at`;
