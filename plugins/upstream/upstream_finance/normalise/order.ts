import { formatDateTime } from '../../../../lib/time.js';
import { money, parseUpstreamAmount } from '../../../../lib/money.js';
import { asArray, asBool, asInt, asRecord, asString, type UnknownRecord } from '../read.js';

export type InvoiceStatus = 'paid' | 'unpaid' | 'partially_paid' | 'cancelled' | 'refunded' | 'unknown';
export type InvoiceKind = 'purchase' | 'renewal' | 'traffic_package' | 'upgrade' | 'other';

export type InvoiceSummary = {
  invoice_id: number;
  kind: InvoiceKind;
  status: InvoiceStatus;
  paid: boolean;
  total: string | null;
  amount_paid: string | null;
  paid_at: string | null;
  created_at: string | null;
};

export type InvoiceState = InvoiceSummary & { host_ids: number[] };

export type OrderState = { order_id: number; status: string; invoice_id: number | null; host_ids: number[] };

export type HostState = { host_id: number; status: string };

/** The order an upstream already holds for a downstream reference (probe answer). */
export type ExistingPurchase = { host_id: number; host_ids: number[]; invoice_id: number | null; order_id: number | null; paid: boolean; amount: string | null };

const INVOICE_KINDS: Record<string, InvoiceKind> = { product: 'purchase', renew: 'renewal', flow_packet: 'traffic_package', flowpacket: 'traffic_package', upgrade: 'upgrade' };
const ORDER_STATUSES = new Set(['pending', 'active', 'cancelled', 'fraud']);
const HOST_STATUSES = new Set(['pending', 'active', 'suspended', 'terminated', 'cancelled', 'deleted', 'fraud']);

export function readIds(value: unknown): number[] {
  const single = asInt(value);
  if (single !== null) return single > 0 ? [single] : [];
  return asArray(value)
    .map(asInt)
    .filter((id): id is number => id !== null && id > 0);
}

function readTime(value: unknown): string | null {
  const seconds = asInt(value);
  return seconds !== null && seconds > 0 ? formatDateTime(seconds * 1000) : null;
}

function invoiceStatus(raw: string, amountPaid: string | null): InvoiceStatus {
  switch (raw.toLowerCase()) {
    case 'paid':
      return 'paid';
    case 'unpaid':
      return amountPaid !== null && money(amountPaid).greaterThan(0) ? 'partially_paid' : 'unpaid';
    case 'cancelled':
      return 'cancelled';
    case 'refunded':
      return 'refunded';
    default:
      return 'unknown';
  }
}

export function normaliseInvoiceSummary(raw: UnknownRecord): InvoiceSummary | null {
  const id = asInt(raw['id']);
  if (id === null) return null;
  const amountPaid = parseUpstreamAmount(raw['credit']);
  const status = invoiceStatus(asString(raw['status']) ?? '', amountPaid);
  return {
    invoice_id: id,
    kind: INVOICE_KINDS[(asString(raw['type']) ?? '').toLowerCase()] ?? 'other',
    status,
    paid: status === 'paid',
    total: parseUpstreamAmount(raw['total']),
    amount_paid: amountPaid,
    paid_at: readTime(raw['paid_time']),
    created_at: readTime(raw['create_time']),
  };
}

export function normaliseInvoice(value: unknown): InvoiceState | null {
  const raw = asRecord(value);
  const summary = raw ? normaliseInvoiceSummary(raw) : null;
  return raw && summary ? { ...summary, host_ids: readIds(raw['hostid']) } : null;
}

export function normaliseOrder(value: unknown): OrderState | null {
  const raw = asRecord(value);
  const id = raw ? asInt(raw['id']) : null;
  if (!raw || id === null) return null;
  const status = (asString(raw['status']) ?? '').toLowerCase();
  return { order_id: id, status: ORDER_STATUSES.has(status) ? status : 'unknown', invoice_id: asInt(raw['invoiceid']), host_ids: readIds(raw['hostid']) };
}

export function normaliseHostStates(value: unknown): HostState[] {
  return asArray(value).flatMap((item) => {
    const raw = asRecord(item);
    const id = raw ? asInt(raw['id']) : null;
    if (!raw || id === null) return [];
    const status = (asString(raw['domainstatus']) ?? '').toLowerCase();
    return [{ host_id: id, status: HOST_STATUSES.has(status) ? status : 'unknown' }];
  });
}

/** `/cart/clear` data: an existing order shows up as `hostid` (plus invoice and paid state). */
export function normaliseExistingPurchase(data: unknown): ExistingPurchase | null {
  const raw = asRecord(data);
  if (!raw) return null;
  const hostIds = readIds(raw['hostids'] ?? raw['hostid']);
  const first = hostIds[0];
  if (first === undefined) return null;
  return { host_id: first, host_ids: hostIds, invoice_id: asInt(raw['invoiceid']), order_id: asInt(raw['orderid']), paid: asBool(raw['paid']), amount: parseUpstreamAmount(raw['total']) };
}
