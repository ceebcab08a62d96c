import { formatDateTime } from '../../../../lib/time.js';
import { asArray, asInt, asRecord, asString, type UnknownRecord } from '../read.js';
import { toBillingPeriod } from './billing-period.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';

const HOST_STATUSES: Record<string, string> = {
  pending: 'pending',
  active: 'active',
  suspended: 'suspended',
  terminated: 'terminated',
  cancelled: 'cancelled',
  deleted: 'deleted',
  fraud: 'fraud',
};

export type HostSummary = {
  id: number;
  product_id: number | null;
  product_name: string;
  hostname: string;
  status: string;
  ip: string;
  next_due_at: string | null;
  billing_cycle: string | null;
  amount: string | null;
};

export type HostDetail = HostSummary & {
  assigned_ips: string[];
  username: string;
  port: number | null;
  os: string;
  registered_at: string | null;
  /** Traffic in GB; `limit_gb` includes `extra_gb` bought as traffic packages. */
  bandwidth: { limit_gb: number | null; used_gb: string | null; extra_gb: number };
  has_password: boolean;
};

function readTime(value: unknown): string | null {
  const seconds = asInt(value);
  if (seconds !== null) return seconds > 0 ? formatDateTime(seconds * 1000) : null;
  const text = asString(value)?.trim();
  return text ? formatDateTime(text) : null;
}

function readIps(value: unknown, mainIp: string): string[] {
  const items = Array.isArray(value) ? asArray(value).map((v) => asString(v) ?? '') : (asString(value) ?? '').split(/[\s,;]+/);
  return [...new Set(items.map((ip) => ip.trim()).filter((ip) => ip !== '' && ip !== mainIp))];
}

export function normaliseHostSummary(raw: UnknownRecord, id: number): HostSummary {
  const cycle = asString(raw['billingcycle']);
  return {
    id,
    product_id: asInt(raw['productid']),
    product_name: asString(raw['productname']) ?? '',
    hostname: asString(raw['domain']) ?? '',
    status: HOST_STATUSES[(asString(raw['domainstatus']) ?? '').toLowerCase()] ?? 'unknown',
    ip: asString(raw['dedicatedip'])?.trim() ?? '',
    next_due_at: readTime(raw['nextduedate']),
    billing_cycle: cycle ? (toBillingPeriod(cycle) ?? cycle) : null,
    amount: parseUpstreamAmount(raw['amount']),
  };
}

/** A host-list item: the summary plus `assigned_ips` when the list carries them (null when it does not). */
export type HostListItem = HostSummary & { assigned_ips: string[] | null };

export function normaliseHostListItem(raw: UnknownRecord, id: number): HostListItem {
  const summary = normaliseHostSummary(raw, id);
  return { ...summary, assigned_ips: raw['assignedips'] === undefined ? null : readIps(raw['assignedips'], summary.ip) };
}

/** `data.host_data` → our `data.host`. The password never appears here: only `has_password`. */
export function normaliseHostDetail(hostData: unknown): HostDetail | null {
  const raw = asRecord(hostData);
  const id = raw ? asInt(raw['id']) : null;
  if (!raw || id === null) return null;
  const summary = normaliseHostSummary(raw, id);
  return {
    ...summary,
    assigned_ips: readIps(raw['assignedips'], summary.ip),
    username: asString(raw['username']) ?? '',
    port: asInt(raw['port']),
    os: asString(raw['os']) ?? '',
    registered_at: readTime(raw['regdate']),
    bandwidth: { limit_gb: asInt(raw['bwlimit']), used_gb: parseUpstreamAmount(raw['bwusage']), extra_gb: Math.max(0, asInt(raw['flow_packet_total']) ?? 0) },
    has_password: (asString(raw['password']) ?? '') !== '',
  };
}
