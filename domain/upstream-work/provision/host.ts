import { addMonths, parseDateTime } from '../../../lib/time.js';
import { inTransaction, sqlOne, statement } from '../../../db/sql.js';
import { BILLING_PERIODS, billingPeriodMonths } from '../../catalogue/billing-periods.js';
import type { DomainDeps } from '../../deps.js';
import { hostTakenError } from './host-taken.js';
import { countServiceEvent } from '../../services/service-events.js';
import { callSupplier } from '../../suppliers/supplier-call.js';
import type { UpstreamPurchase } from './upstream-order.js';

/** What the platform keeps of an upstream host (never its password). */
export type HostSnapshot = {
  hostId: number;
  status: string;
  ip: string;
  assignedIps: string[];
  os: string;
  username: string;
  port: number | null;
  upstreamDueAt: string | null;
};

function readHost(hostId: number, raw: unknown): HostSnapshot {
  const h = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    hostId,
    status: text(h['status']) || 'unknown',
    ip: text(h['ip']),
    assignedIps: Array.isArray(h['assigned_ips']) ? h['assigned_ips'].filter((x): x is string => typeof x === 'string') : [],
    os: text(h['os']),
    username: text(h['username']),
    port: typeof h['port'] === 'number' ? h['port'] : null,
    upstreamDueAt: typeof h['next_due_at'] === 'string' ? h['next_due_at'] : null,
  };
}

/** One look at the host (the workflow polls until it is `active`). */
export async function lookupUpstreamHost(deps: DomainDeps, p: UpstreamPurchase, hostId: number): Promise<HostSnapshot> {
  const data = await callSupplier(deps, p.supplierId, 'upstream.host_detail', { host_id: hostId }, { traceId: p.traceId });
  return readHost(hostId, data['host']);
}

/**
 * Binds the host once: the binding moves only when it does not already name this host as bound
 * (the guard in the WHERE clause), and the step's history row is written with the move. The
 * answer tells a missing binding apart from one already bound.
 */
const BIND_HOST = statement(
  `WITH bound AS (
     UPDATE service_upstream_bindings SET upstream_host_id = $2, bound_at = now(), updated_at = now()
      WHERE service_id = $1 AND NOT (bound_at IS NOT NULL AND upstream_host_id IS NOT DISTINCT FROM $2)
      RETURNING service_id
   ), event AS (
     INSERT INTO service_events (service_id, kind, stage, status, message, workflow_id)
     SELECT service_id, 'provision', 'bind', 'succeeded', $3, $4 FROM bound RETURNING id
   )
   SELECT EXISTS (SELECT 1 FROM service_upstream_bindings WHERE service_id = $1) AS found, EXISTS (SELECT 1 FROM bound) AS bound`,
);

/** The service's upstream binding now names its host: from here the console works against it. */
export async function bindUpstreamHost(deps: DomainDeps, serviceId: number, hostId: number, workflowId: string): Promise<void> {
  let row: { found: boolean; bound: boolean } | null;
  try {
    row = await sqlOne<{ found: boolean; bound: boolean }>(deps, BIND_HOST, [serviceId, hostId, `已绑定上游主机 ${hostId}`, workflowId]);
  } catch (err) {
    throw await hostTakenError(deps, serviceId, hostId, err);
  }
  if (!row?.found) throw new Error(`service ${serviceId} has no upstream binding`);
  if (row.bound) countServiceEvent({ kind: 'provision', stage: 'bind', status: 'succeeded' }, undefined);
}

/** `next_due_at` of an activation at `now`, by billing period (`onetime`: none). */
function dueDatesFrom(now: Date): Record<string, string | null> {
  return Object.fromEntries(
    BILLING_PERIODS.map((period) => {
      const months = billingPeriodMonths(period);
      return [period, months === null ? null : addMonths(now, months).toISOString()];
    }),
  );
}

/**
 * The activation, once, in one statement: the service active with its host's data (`$4`: a host
 * is given) unless it is active already (the guard in the WHERE clause), and the step's history
 * row. The due date comes from `$3`, the due date of each billing period (none for a period not
 * listed). The answer tells a missing service apart from one already active, and names the order.
 */
const ACTIVATE = statement(
  `WITH activated AS (
     UPDATE services w SET status = 'active', activated_at = $2, next_due_at = ($3::jsonb ->> w.billing_period)::timestamptz,
            provisioning_stage = 'done', stage_changed_at = $2, failure_code = NULL, failure_reason = NULL,
            ip = CASE WHEN $4::boolean THEN $5::text ELSE w.ip END,
            assigned_ips = CASE WHEN $4::boolean THEN $6::jsonb ELSE w.assigned_ips END,
            os = CASE WHEN $4::boolean THEN $7::text ELSE w.os END,
            username = CASE WHEN $4::boolean THEN $8::text ELSE w.username END,
            port = CASE WHEN $4::boolean THEN $9::int ELSE w.port END,
            upstream_status = CASE WHEN $4::boolean THEN $10::text ELSE w.upstream_status END,
            upstream_due_at = CASE WHEN $4::boolean THEN $11::timestamptz ELSE w.upstream_due_at END,
            upstream_synced_at = CASE WHEN $4::boolean THEN $2 ELSE w.upstream_synced_at END,
            updated_at = $2
      WHERE w.id = $1 AND w.status <> 'active'
      RETURNING w.id, w.order_id
   ), event AS (
     INSERT INTO service_events (service_id, kind, stage, status, message, workflow_id)
     SELECT id, 'provision', 'activate', 'succeeded', '服务已开通', $12 FROM activated RETURNING id
   )
   SELECT EXISTS (SELECT 1 FROM services WHERE id = $1) AS found, EXISTS (SELECT 1 FROM activated) AS activated,
          (SELECT order_id FROM activated) AS order_id`,
);

/** The order's row lock: completions of one order are decided one after the other. */
const LOCK_ORDER = statement(`SELECT id FROM orders WHERE id = $1 FOR UPDATE`);

/**
 * The order completed (when still `paid`) once none of its services is pending, provisioning or
 * failed. Run after `LOCK_ORDER`, as a statement of its own: its snapshot is taken under the lock,
 * so it sees every activation of the order that committed before it (two services activating at
 * once: the second to take the lock completes the order).
 */
const COMPLETE_ORDER = statement(
  `UPDATE orders o SET status = 'completed', completed_at = $2, updated_at = $2
    WHERE o.id = $1 AND o.status = 'paid'
      AND NOT EXISTS (SELECT 1 FROM services s WHERE s.order_id = o.id AND s.status IN ('pending', 'provisioning', 'failed'))
    RETURNING o.id`,
);

/**
 * The service becomes active with its host's data; its first period starts now. Its order is
 * completed once every service of the order is active, decided under the order's row lock in the
 * activation's transaction. Idempotent.
 */
export async function activateService(deps: DomainDeps, serviceId: number, host: HostSnapshot | null, workflowId: string): Promise<void> {
  const now = new Date();
  const row = await inTransaction(deps, async (tx) => {
    const activated = await sqlOne<{ found: boolean; activated: boolean; order_id: number | null }>(
      deps,
      ACTIVATE,
      [
        serviceId,
        now,
        JSON.stringify(dueDatesFrom(now)),
        host !== null,
        host?.ip ?? null,
        JSON.stringify(host?.assignedIps ?? []),
        host?.os ?? null,
        host?.username ?? null,
        host?.port ?? null,
        host?.status ?? null,
        host?.upstreamDueAt ? parseDateTime(host.upstreamDueAt) : null,
        workflowId,
      ],
      tx,
    );
    if (activated?.order_id != null) {
      await sqlOne(deps, LOCK_ORDER, [activated.order_id], tx);
      await sqlOne(deps, COMPLETE_ORDER, [activated.order_id, now], tx);
    }
    return activated;
  });
  if (!row?.found) throw new Error(`service ${serviceId} not found`);
  if (row.activated) countServiceEvent({ kind: 'provision', stage: 'activate', status: 'succeeded' }, undefined);
}

export type { UpstreamPurchase };
