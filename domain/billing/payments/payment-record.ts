import type { PluginActor } from '../../../plugins/runtime/contract.js';
import type { Audit } from '../audit.js';
import type { PaidSource, PaymentSettlement, PaymentStatus } from '../../../db/models/money.js';

export type PaymentRecord = {
  id: number;
  payment_no: string;
  invoice_id: number;
  user_id: number;
  plugin_id: number | null;
  gateway: string;
  trade_no: string | null;
  amount: string;
  balance_part: string;
  refunded_amount: string;
  currency: 'CNY';
  status: PaymentStatus;
  settlement: PaymentSettlement | null;
  paid_source: PaidSource | null;
  notify_id: string | null;
  qr_code_url: string;
  expires_at: Date;
  paid_at: Date | null;
  closed_at: Date | null;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export const PAYMENT_COLUMNS = `id, payment_no, invoice_id, user_id, plugin_id, gateway, trade_no, amount, balance_part, refunded_amount, currency,
  status, settlement, paid_source, notify_id, qr_code_url, expires_at, paid_at, closed_at, trace_id, created_at, updated_at`;

/** The plugin runtime's actor for a money operation. */
export function pluginActor(audit: Audit): PluginActor {
  const { type, id } = audit.operator;
  return { type: type === 'user' ? 'client' : type, id };
}
