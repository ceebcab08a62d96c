import { formatDateTime, parseDateTime } from '../../../lib/time.js';
import type { ReconciliationFindingKind } from '../../../db/models/reconciliation.js';

/** A host of the supplier's list (the plugin's `upstream.host_list` summary; it carries no password). */
export type UpstreamHost = {
  id: number;
  status: string;
  next_due_at: string | null;
  product_name?: string;
  hostname?: string;
  ip?: string;
  billing_cycle?: string | null;
  amount?: string | null;
};

/** A bill of the supplier's list (the plugin's `upstream.bill_list`). */
export type UpstreamBill = {
  id: number;
  type: string;
  status: string;
  amount: string | null;
  host_ids: number[];
  created_at: string | null;
  paid_at: string | null;
};

/** One of our services bound to a host of this supplier. */
export type BoundService = {
  service_id: number;
  status: string;
  next_due_at: Date | null;
  hostname: string;
  product_name: string;
  upstream_host_id: number;
};

/**
 * What a provisioning left at this supplier when it failed over to another binding (a
 * `service_upstream_attempts` row, migration 0048): the order, the bill opened and never paid,
 * the unpaid order's host. The service is now bound to (and delivered by) another supplier.
 */
export type FailoverAttempt = {
  service_id: number;
  /** The service's status now, and the supplier that delivered it (`services.supplier_id`). */
  service_status: string;
  delivered_by: number | null;
  upstream_order_id: number | null;
  upstream_invoice_id: number | null;
  upstream_host_id: number | null;
  code: string;
  reason: string;
  left_at: Date;
};

/** `ours` and `theirs` are flat (scalar values only): the admin list answers at most three levels under `data`. */
export type Finding = {
  kind: ReconciliationFindingKind;
  subject_key: string;
  service_id: number | null;
  upstream_host_id: number | null;
  upstream_bill_id: number | null;
  amount: string | null;
  ours: Record<string, string | number | boolean | null>;
  theirs: Record<string, string | number | boolean | null>;
};

/** Upstream host statuses that mean the host is gone (nothing runs, nothing is charged). */
const GONE = new Set(['terminated', 'cancelled', 'deleted', 'fraud']);

/** Local statuses of a service that no longer runs: its host upstream should not run either. */
const ENDED = new Set(['terminated', 'cancelled', 'failed']);

/**
 * Due dates closer than this are the same date: the upstream's and ours are set by separate
 * clocks at purchase and renewal (seconds to minutes apart), and a day boundary may fall between.
 */
export const DUE_DATE_TOLERANCE_MS = 24 * 3_600_000;

export type Comparison = {
  hosts: UpstreamHost[];
  /** The host list held every host of its total: only then is a host's absence a finding. */
  hostsComplete: boolean;
  services: BoundService[];
  /** Paid upstream bills none of our records names (null: bills were not compared). */
  unmatchedPaidBills: UpstreamBill[] | null;
  /** What provisionings that failed over left at this supplier. */
  attempts?: FailoverAttempt[];
  now: Date;
};

function hostSeen(host: UpstreamHost) {
  return {
    host_id: host.id,
    status: host.status,
    next_due_at: host.next_due_at,
    product_name: host.product_name ?? '',
    hostname: host.hostname ?? '',
    ip: host.ip ?? '',
    billing_cycle: host.billing_cycle ?? null,
    amount: host.amount ?? null,
  };
}

function attemptSeen(attempt: FailoverAttempt) {
  return {
    service_id: attempt.service_id,
    status: attempt.service_status,
    delivered_by_supplier_id: attempt.delivered_by,
    failover_code: attempt.code,
    failover_reason: attempt.reason,
    left_at: formatDateTime(attempt.left_at),
    upstream_order_id: attempt.upstream_order_id,
    upstream_invoice_id: attempt.upstream_invoice_id,
    upstream_host_id: attempt.upstream_host_id,
  };
}

function billSeen(bill: UpstreamBill) {
  return { bill_id: bill.id, type: bill.type, status: bill.status, amount: bill.amount, host_ids: bill.host_ids.join(','), created_at: bill.created_at, paid_at: bill.paid_at };
}

function serviceSeen(service: BoundService) {
  return {
    service_id: service.service_id,
    status: service.status,
    next_due_at: formatDateTime(service.next_due_at),
    hostname: service.hostname,
    product_name: service.product_name,
  };
}

/**
 * What one supplier's lists show against our records, one finding per subject:
 * - a host alive upstream (not terminated, cancelled, deleted) that no service of ours is bound
 *   to, or only services that ended here: `unknown_upstream_host` (it is still charged);
 * - for each service active here: its host absent from a complete list or gone upstream
 *   (`missing_upstream`), suspended (`upstream_suspended`), past its upstream due date
 *   (`upstream_expired`), or due more than a day apart from ours (`due_date_mismatch`);
 * - a paid upstream bill that no provisioning or service order recorded: `unmatched_upstream_charge`.
 *
 * What a failover left here (`attempts`) is accounted for while it stays unpaid: its unpaid bill is
 * no finding (no unpaid bill is) and its host, pending or gone, is no `unknown_upstream_host`.
 * Paid after all, it is told apart: a paid bill that is the attempt's bill or names its host is
 * `paid_after_failover` (not `unmatched_upstream_charge`); the attempt's host running (any status
 * but pending or gone) with no live service bound to it is `live_after_failover`.
 */
export function compareSupplier(input: Comparison): Finding[] {
  const findings = new Map<string, Finding>();
  const add = (finding: Finding) => {
    const key = `${finding.kind}\n${finding.subject_key}`;
    if (!findings.has(key)) findings.set(key, finding);
  };
  const byHost = new Map<number, BoundService[]>();
  for (const service of input.services) byHost.set(service.upstream_host_id, [...(byHost.get(service.upstream_host_id) ?? []), service]);
  const hosts = new Map(input.hosts.map((h) => [h.id, h]));
  const attempts = input.attempts ?? [];
  const leftHost = new Map<number, FailoverAttempt>();
  const leftBill = new Map<number, FailoverAttempt>();
  for (const attempt of attempts) {
    if (attempt.upstream_host_id !== null && !leftHost.has(attempt.upstream_host_id)) leftHost.set(attempt.upstream_host_id, attempt);
    if (attempt.upstream_invoice_id !== null && !leftBill.has(attempt.upstream_invoice_id)) leftBill.set(attempt.upstream_invoice_id, attempt);
  }

  for (const host of input.hosts) {
    if (GONE.has(host.status)) continue;
    const bound = byHost.get(host.id) ?? [];
    if (bound.some((s) => !ENDED.has(s.status))) continue;
    const left = leftHost.get(host.id);
    if (left) {
      // The unpaid order's host waits for a payment that never comes: accounted for. Running, it is not.
      if (host.status === 'pending') continue;
      add({
        kind: 'live_after_failover',
        subject_key: `host:${host.id}`,
        service_id: left.service_id,
        upstream_host_id: host.id,
        upstream_bill_id: left.upstream_invoice_id,
        amount: host.amount ?? null,
        ours: attemptSeen(left),
        theirs: hostSeen(host),
      });
      continue;
    }
    const ended = bound[0];
    add({
      kind: 'unknown_upstream_host',
      subject_key: `host:${host.id}`,
      service_id: ended?.service_id ?? null,
      upstream_host_id: host.id,
      upstream_bill_id: null,
      amount: host.amount ?? null,
      ours: ended ? serviceSeen(ended) : {},
      theirs: hostSeen(host),
    });
  }

  for (const service of input.services) {
    if (service.status !== 'active') continue;
    const host = hosts.get(service.upstream_host_id);
    const base = { subject_key: `host:${service.upstream_host_id}`, service_id: service.service_id, upstream_host_id: service.upstream_host_id, upstream_bill_id: null, amount: null, ours: serviceSeen(service) };
    if (!host) {
      if (input.hostsComplete) add({ ...base, kind: 'missing_upstream', theirs: { host_id: service.upstream_host_id, listed: false } });
      continue;
    }
    if (GONE.has(host.status)) {
      add({ ...base, kind: 'missing_upstream', theirs: { ...hostSeen(host), listed: true } });
      continue;
    }
    if (host.status === 'suspended') {
      add({ ...base, kind: 'upstream_suspended', theirs: hostSeen(host) });
      continue;
    }
    const upstreamDue = host.next_due_at ? parseDateTime(host.next_due_at) : null;
    if (upstreamDue && upstreamDue.getTime() < input.now.getTime()) {
      add({ ...base, kind: 'upstream_expired', theirs: hostSeen(host) });
      continue;
    }
    if (upstreamDue && service.next_due_at && Math.abs(upstreamDue.getTime() - service.next_due_at.getTime()) > DUE_DATE_TOLERANCE_MS) {
      const days = Math.round((upstreamDue.getTime() - service.next_due_at.getTime()) / 86_400_000);
      add({ ...base, kind: 'due_date_mismatch', theirs: { ...hostSeen(host), days_after_ours: days } });
    }
  }

  for (const bill of input.unmatchedPaidBills ?? []) {
    const left = leftBill.get(bill.id) ?? bill.host_ids.map((id) => leftHost.get(id)).find((a) => a !== undefined);
    if (left) {
      add({
        kind: 'paid_after_failover',
        subject_key: `bill:${bill.id}`,
        service_id: left.service_id,
        upstream_host_id: left.upstream_host_id ?? (bill.host_ids.length === 1 ? (bill.host_ids[0] ?? null) : null),
        upstream_bill_id: bill.id,
        amount: bill.amount,
        ours: { recorded: false, ...attemptSeen(left) },
        theirs: billSeen(bill),
      });
      continue;
    }
    const services = bill.host_ids.flatMap((id) => byHost.get(id) ?? []);
    add({
      kind: 'unmatched_upstream_charge',
      subject_key: `bill:${bill.id}`,
      service_id: services.length === 1 ? (services[0]?.service_id ?? null) : null,
      upstream_host_id: bill.host_ids.length === 1 ? (bill.host_ids[0] ?? null) : null,
      upstream_bill_id: bill.id,
      amount: bill.amount,
      ours: { recorded: false, service_ids: services.map((s) => s.service_id).join(',') },
      theirs: billSeen(bill),
    });
  }
  return [...findings.values()];
}
