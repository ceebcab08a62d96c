import type { OperatorType, RefundMethod, RefundStatus } from '../../../db/models/money.js';

export type RefundRecord = {
  id: number;
  refund_no: string;
  user_id: number;
  invoice_id: number;
  refund_invoice_id: number | null;
  payment_id: number | null;
  amount: string;
  balance_part: string;
  third_party_part: string;
  currency: 'CNY';
  refund_method: RefundMethod;
  status: RefundStatus;
  reason: string;
  scope: string[];
  out_request_no: string | null;
  failure_reason: string;
  operator_type: OperatorType;
  operator_id: number | null;
  operator_name: string;
  refunded_at: Date | null;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export const REFUND_COLUMNS = `id, refund_no, user_id, invoice_id, refund_invoice_id, payment_id, amount, balance_part, third_party_part, currency,
  refund_method, status, reason, scope, out_request_no, failure_reason, operator_type, operator_id, operator_name, refunded_at, trace_id,
  created_at, updated_at`;
