import { formatDateTime } from '../../../../lib/time.js';
import { asArray, asInt, asString, type UnknownRecord } from '../read.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';

const BILL_STATUSES: Record<string, BillStatus> = { paid: 'paid', unpaid: 'unpaid', cancelled: 'cancelled', refunded: 'refunded' };
const BILL_TYPES: Record<string, string> = { product: 'product', renew: 'renew', flow_packet: 'traffic_package', upgrade: 'upgrade' };

export type BillStatus = 'paid' | 'unpaid' | 'cancelled' | 'refunded' | 'unknown';

/** One upstream bill as we read it: what it charged, for which hosts, and when. */
export type BillItem = {
  id: number;
  /** product (a purchase), renew, traffic_package, upgrade, or the upstream's own word. */
  type: string;
  status: BillStatus;
  amount: string | null;
  host_ids: number[];
  created_at: string | null;
  paid_at: string | null;
};

function readTime(value: unknown): string | null {
  const seconds = asInt(value);
  return seconds !== null && seconds > 0 ? formatDateTime(seconds * 1000) : null;
}

function readHostIds(value: unknown): number[] {
  const items = Array.isArray(value) ? asArray(value) : (asString(value) ?? '').split(',');
  return [...new Set(items.map(asInt).filter((v): v is number => v !== null && v > 0))];
}

export function normaliseBill(raw: UnknownRecord, id: number): BillItem {
  const type = asString(raw['type']) ?? '';
  return {
    id,
    type: BILL_TYPES[type] ?? type.slice(0, 32),
    status: BILL_STATUSES[(asString(raw['status']) ?? '').toLowerCase()] ?? 'unknown',
    amount: parseUpstreamAmount(raw['total']),
    host_ids: readHostIds(raw['hostid']),
    created_at: readTime(raw['create_time']),
    paid_at: readTime(raw['paid_time']),
  };
}
