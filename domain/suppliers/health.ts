import { inTransaction, sqlOne, sqlRows, statement, type Tx } from '../../db/sql.js';
import type { SupplierBreakerState } from '../../db/models/supplier.js';
import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import { outsideAdminAudit } from '../../lib/request-context.js';
import type { PluginInvocation } from '../../plugins/runtime/invoke.js';
import type { DomainDeps } from '../deps.js';
import { raiseAdminAlert } from '../economics/alerts.js';
import { economicsSettings } from '../settings/groups/economics.js';
import { readSettings } from '../settings/settings.js';

/**
 * Supplier health (issue #38, docs/fulfilment.md "Supplier health"): every upstream call the
 * platform makes goes through `invokeSupplierPlugin`, which records its outcome and latency here
 * (one row of `supplier_calls`). The circuit breaker of a supplier (`supplier_breakers`) is shared
 * by every process through PostgreSQL and moves only by guarded conditional writes:
 * - closed → open: a failed call finds, within the window (the `economics` settings
 *   `health_window_minutes`, counted from the breaker's last closing), at least
 *   `health_min_calls` calls of which at least `health_failure_percent` % failed. The opening
 *   increments `episode` and raises the `supplier_down` alert in its transaction;
 * - open → half_open: after `health_open_seconds`, the one caller of `supplierAvailability` whose
 *   UPDATE matches claims the probe (a probe not reported within that time may be claimed again);
 * - half_open (or open past its time) → closed: a call succeeds; the `supplier_up` alert of the
 *   episode is raised in its transaction. → open: a call fails; the time starts again, no alert.
 * Alerts are keyed by supplier and episode (`supplier-down:<id>:<episode>`), so one episode is
 * told once down and once back, whatever the number of processes.
 */

/** A call the platform made to a supplier, as the breaker counts it. */
export type CallOutcome = { failed: boolean; code: string | null };

/**
 * What counts as a failure: the supplier did not answer usably. A runtime timeout, a transient
 * failure (the plugin's `error_kind`: connection error, upstream timeout, HTTP 5xx/429/408, the
 * upstream's maintenance answer, an unparsable answer), an ambiguous one, or a failure without a
 * kind (the plugin threw). A `permanent` failure is the supplier answering with a refusal (out of
 * stock, balance short, product withdrawn, validation, credentials): the supplier is up, so it is
 * recorded but not counted as failed.
 */
export function callOutcome(invocation: Pick<PluginInvocation, 'status' | 'data'>): CallOutcome {
  if (invocation.status === 'success') return { failed: false, code: null };
  if (invocation.status === 'timeout') return { failed: true, code: 'timeout' };
  const kind = invocation.data['error_kind'];
  const code = typeof invocation.data['error_code'] === 'string' ? invocation.data['error_code'].slice(0, 64) : invocation.status;
  return { failed: kind !== 'permanent', code };
}

/** One row per call; answers the breaker as it was (no row: closed, the common case). */
const RECORD_CALL = statement(
  `WITH call AS (INSERT INTO supplier_calls (supplier_id, action, failed, error_code, duration_ms) VALUES ($1, $2, $3, $4, $5))
   SELECT state, opened_at FROM supplier_breakers WHERE supplier_id = $1`,
);

/** The breaker's window: calls since max(now − window, the last closing). */
const WINDOW = statement(
  `SELECT count(*)::int AS calls, count(*) FILTER (WHERE failed)::int AS failures
     FROM supplier_calls
    WHERE supplier_id = $1
      AND created_at > greatest(now() - make_interval(mins => $2::int), COALESCE((SELECT closed_at FROM supplier_breakers WHERE supplier_id = $1), '-infinity'::timestamptz))`,
);

/** closed → open, guarded: of concurrent openers, one gets the row (and the episode). */
const OPEN_BREAKER = statement(
  `INSERT INTO supplier_breakers (supplier_id, state, episode, opened_at, changed_at) VALUES ($1, 'open', 1, now(), now())
   ON CONFLICT (supplier_id) DO UPDATE SET state = 'open', episode = supplier_breakers.episode + 1, opened_at = now(), probe_claimed_at = NULL, changed_at = now()
    WHERE supplier_breakers.state = 'closed'
   RETURNING episode, (SELECT name FROM suppliers WHERE id = $1) AS name`,
);

/** A call succeeded while half-open (or open past its time): closed, once. */
const CLOSE_AFTER_PROBE = statement(
  `UPDATE supplier_breakers SET state = 'closed', closed_at = now(), probe_claimed_at = NULL, changed_at = now()
    WHERE supplier_id = $1 AND (state = 'half_open' OR (state = 'open' AND opened_at <= now() - make_interval(secs => $2::int)))
   RETURNING episode, opened_at, (SELECT name FROM suppliers WHERE id = $1) AS name`,
);

/** A call failed while half-open (or open past its time): open again, its time from now. */
const REOPEN_AFTER_PROBE = statement(
  `UPDATE supplier_breakers SET state = 'open', opened_at = now(), probe_claimed_at = NULL, changed_at = now()
    WHERE supplier_id = $1 AND (state = 'half_open' OR (state = 'open' AND opened_at <= now() - make_interval(secs => $2::int)))
   RETURNING episode`,
);

/**
 * The probe claim: open past its time, or half-open with a probe that did not report in time,
 * → half_open with the claim now. Concurrent claimers queue on the row; after the first commits,
 * the others' WHERE no longer matches (READ COMMITTED re-reads the row), so one claims it.
 */
const AVAILABILITY = statement(
  `WITH claimed AS (
     UPDATE supplier_breakers SET state = 'half_open', probe_claimed_at = now(), changed_at = now()
      WHERE supplier_id = $1
        AND ((state = 'open' AND opened_at <= now() - make_interval(secs => $2::int))
          OR (state = 'half_open' AND probe_claimed_at <= now() - make_interval(secs => $2::int)))
      RETURNING probe_claimed_at)
   SELECT b.state, b.opened_at, b.probe_claimed_at, (SELECT count(*) FROM claimed)::int AS claimed
     FROM (SELECT 1) one LEFT JOIN supplier_breakers b ON b.supplier_id = $1`,
);

type BreakerRead = { state: SupplierBreakerState; opened_at: Date | null };

async function healthSettings(deps: DomainDeps) {
  const s = await readSettings(deps, economicsSettings);
  return { windowMinutes: s.health_window_minutes, failurePercent: s.health_failure_percent, minCalls: s.health_min_calls, openSeconds: s.health_open_seconds };
}

/**
 * Records one call (from `invokeSupplierPlugin`) and moves the breaker when it must. Never
 * throws: a health write that fails is logged, and the call's answer goes on as it was.
 */
export async function recordSupplierCall(deps: DomainDeps, supplierId: number, action: string, outcome: CallOutcome, durationMs: number): Promise<void> {
  // Not a change an admin call makes (a connection test): outside its audit, like the runtime log.
  return outsideAdminAudit(() => recordCall(deps, supplierId, action, outcome, durationMs));
}

async function recordCall(deps: DomainDeps, supplierId: number, action: string, outcome: CallOutcome, durationMs: number): Promise<void> {
  try {
    const breaker = await sqlOne<BreakerRead>(deps, RECORD_CALL, [supplierId, action.slice(0, 64), outcome.failed, outcome.code, Math.max(0, Math.round(durationMs))]);
    const state = breaker?.state ?? 'closed';
    if (state === 'closed') {
      if (outcome.failed) await openIfFailing(deps, supplierId);
      return;
    }
    const settings = await healthSettings(deps);
    const due = state === 'half_open' || (breaker?.opened_at != null && Date.now() - new Date(breaker.opened_at).getTime() >= settings.openSeconds * 1000);
    if (!due) return;
    if (outcome.failed) await sqlOne(deps, REOPEN_AFTER_PROBE, [supplierId, settings.openSeconds]);
    else await closeBreaker(deps, supplierId, CLOSE_AFTER_PROBE, [supplierId, settings.openSeconds], null);
  } catch (err) {
    deps.logger.error({ err, supplierId, action }, 'supplier call not recorded for supplier health');
  }
}

async function openIfFailing(deps: DomainDeps, supplierId: number): Promise<void> {
  const settings = await healthSettings(deps);
  const window = await sqlOne<{ calls: number; failures: number }>(deps, WINDOW, [supplierId, settings.windowMinutes]);
  if (!window || window.calls < settings.minCalls || window.failures * 100 < settings.failurePercent * window.calls) return;
  await inTransaction(deps, async (tx) => {
    const opened = await sqlOne<{ episode: number; name: string | null }>(deps, OPEN_BREAKER, [supplierId], tx);
    if (!opened) return;
    const percent = Math.round((window.failures * 1000) / window.calls) / 10;
    await raiseAdminAlert(
      deps,
      {
        kind: 'supplier_down',
        key: `supplier-down:${supplierId}:${opened.episode}`,
        severity: 'critical',
        title: `供应商「${opened.name ?? supplierId}」不可用`,
        message: `最近 ${settings.windowMinutes} 分钟内 ${window.calls} 次调用中 ${window.failures} 次失败（${percent}%），已暂停向其分配新的开通；${settings.openSeconds} 秒后放行一次试探调用，成功即恢复。`,
        subject: { supplier_id: supplierId },
        detail: { episode: opened.episode, calls: window.calls, failures: window.failures, failure_percent: percent, window_minutes: settings.windowMinutes },
      },
      tx,
    );
  });
}

async function closeBreaker(deps: DomainDeps, supplierId: number, sql: ReturnType<typeof statement> | string, bind: unknown[], operator: Actor | null): Promise<boolean> {
  return inTransaction(deps, async (tx: Tx) => {
    const closed = await sqlOne<{ episode: number; opened_at: Date | null; name: string | null }>(deps, sql, bind, tx);
    if (!closed) return false;
    await raiseAdminAlert(
      deps,
      {
        kind: 'supplier_up',
        key: `supplier-up:${supplierId}:${closed.episode}`,
        severity: 'info',
        title: `供应商「${closed.name ?? supplierId}」已恢复`,
        message: operator ? `管理员已手动关闭熔断器，恢复向该供应商分配新的开通。` : '试探调用成功，熔断器已关闭，恢复向该供应商分配新的开通。',
        subject: { supplier_id: supplierId },
        detail: { episode: closed.episode, down_since: closed.opened_at ? new Date(closed.opened_at).toISOString() : null, closed_by: operator ? operator.id : null },
      },
      tx,
    );
    return true;
  });
}

export type SupplierAvailability = {
  supplierId: number;
  state: SupplierBreakerState;
  /** A call may go now: closed, or this caller holds the half-open probe. */
  mayCall: boolean;
  /** This caller claimed the one probe: make one call and its outcome closes or reopens the breaker. */
  probe: boolean;
  /** Open (or probe taken): when a probe may next be claimed. */
  retryAt: Date | null;
};

/**
 * What routing and the funds wait read before sending a supplier new work: one statement.
 * Closed (or no row): may call. Open before its time, or half-open with the probe taken: may not.
 * Open past its time: this caller claims the single probe atomically (exactly one caller across
 * processes gets `probe: true`); its call, made through `callSupplier`/`invokeSupplierPlugin` as
 * any other, is recorded and closes the breaker on success or opens it again on failure.
 */
export async function supplierAvailability(deps: DomainDeps, supplierId: number): Promise<SupplierAvailability> {
  const { openSeconds } = await healthSettings(deps);
  const row = await sqlOne<{ state: SupplierBreakerState | null; opened_at: Date | null; probe_claimed_at: Date | null; claimed: number }>(deps, AVAILABILITY, [supplierId, openSeconds]);
  if (row && row.claimed > 0) return { supplierId, state: 'half_open', mayCall: true, probe: true, retryAt: null };
  const state = row?.state ?? 'closed';
  if (state === 'closed') return { supplierId, state, mayCall: true, probe: false, retryAt: null };
  const since = state === 'open' ? row?.opened_at : row?.probe_claimed_at;
  const retryAt = since ? new Date(new Date(since).getTime() + openSeconds * 1000) : null;
  // Read open past its time yet not claimed: a concurrent caller claimed the probe after this
  // statement's snapshot (its claim committed first, so ours no longer matched): half-open now.
  if (state === 'open' && retryAt && retryAt.getTime() <= Date.now()) {
    return { supplierId, state: 'half_open', mayCall: false, probe: false, retryAt: new Date(Date.now() + openSeconds * 1000) };
  }
  return { supplierId, state, mayCall: false, probe: false, retryAt };
}

/**
 * The breaker state of each supplier, read only: no probe is claimed (no row: closed). Routing
 * reads it first and calls `supplierAvailability`, which may claim the one probe, only for a
 * supplier it would give the work to once the closed ones could not take it.
 */
export async function supplierBreakerStates(deps: DomainDeps, supplierIds: number[]): Promise<Map<number, SupplierBreakerState>> {
  const rows = await sqlRows<{ supplier_id: number; state: SupplierBreakerState }>(
    deps,
    'SELECT supplier_id, state FROM supplier_breakers WHERE supplier_id = ANY($1::int[])',
    [supplierIds],
  );
  const states = new Map<number, SupplierBreakerState>(supplierIds.map((id) => [id, 'closed']));
  for (const row of rows) states.set(row.supplier_id, row.state);
  return states;
}

export type SupplierHealth = {
  supplier_id: number;
  code: string;
  name: string;
  state: SupplierBreakerState;
  episode: number;
  opened_at: Date | null;
  probe_claimed_at: Date | null;
  closed_at: Date | null;
  changed_at: Date | null;
  /** Open: when a probe may be claimed; half-open: when an unreported probe may be claimed again. */
  retry_at: Date | null;
  window_minutes: number;
  calls: number;
  failures: number;
  /** failures ÷ calls × 100 over the window, one decimal; null without calls. */
  failure_percent: number | null;
  latency_avg_ms: number | null;
  latency_p95_ms: number | null;
  latency_max_ms: number | null;
  last_failure_at: Date | null;
  last_error_code: string | null;
};

const HEALTH_SQL = `
  SELECT s.id AS supplier_id, s.code, s.name, COALESCE(b.state, 'closed') AS state, COALESCE(b.episode, 0) AS episode,
         b.opened_at, b.probe_claimed_at, b.closed_at, b.changed_at,
         COALESCE(w.calls, 0)::int AS calls, COALESCE(w.failures, 0)::int AS failures,
         w.latency_avg_ms, w.latency_p95_ms, w.latency_max_ms, f.created_at AS last_failure_at, f.error_code AS last_error_code
    FROM suppliers s
    LEFT JOIN supplier_breakers b ON b.supplier_id = s.id
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS calls, count(*) FILTER (WHERE failed)::int AS failures, round(avg(duration_ms))::int AS latency_avg_ms,
             round(percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms))::int AS latency_p95_ms, max(duration_ms)::int AS latency_max_ms
        FROM supplier_calls c WHERE c.supplier_id = s.id AND c.created_at > now() - make_interval(mins => $1::int)) w ON true
    LEFT JOIN LATERAL (
      SELECT created_at, error_code FROM supplier_calls c WHERE c.supplier_id = s.id AND c.failed AND c.created_at > now() - make_interval(mins => $1::int)
       ORDER BY created_at DESC LIMIT 1) f ON true`;

type HealthRow = Omit<SupplierHealth, 'window_minutes' | 'failure_percent' | 'retry_at'>;

function healthOf(row: HealthRow, settings: { windowMinutes: number; openSeconds: number }): SupplierHealth {
  const since = row.state === 'open' ? row.opened_at : row.state === 'half_open' ? row.probe_claimed_at : null;
  return {
    ...row,
    retry_at: since ? new Date(new Date(since).getTime() + settings.openSeconds * 1000) : null,
    window_minutes: settings.windowMinutes,
    failure_percent: row.calls > 0 ? Math.round((row.failures * 1000) / row.calls) / 10 : null,
  };
}

/**
 * The health of every supplier over the window (the admin list, the dashboard, the gauges):
 * suppliers are few (admin-created rows); each reads its window through `supplier_calls_window_idx`.
 * The figures are the plain last `health_window_minutes`; the breaker counts from its last closing.
 */
export async function listSupplierHealth(deps: DomainDeps): Promise<SupplierHealth[]> {
  const settings = await healthSettings(deps);
  const rows = await sqlRows<HealthRow>(deps, `${HEALTH_SQL} ORDER BY s.id`, [settings.windowMinutes]);
  return rows.map((r) => healthOf(r, settings));
}

/** One supplier's health; 404 when there is no such supplier. */
export async function getSupplierHealth(deps: DomainDeps, supplierId: number): Promise<SupplierHealth> {
  const settings = await healthSettings(deps);
  const row = await sqlOne<HealthRow>(deps, `${HEALTH_SQL} WHERE s.id = $2`, [settings.windowMinutes, supplierId]);
  if (!row) throw notFound('供应商不存在');
  return healthOf(row, settings);
}

const FORCE_CLOSE = `UPDATE supplier_breakers SET state = 'closed', closed_at = now(), probe_claimed_at = NULL, changed_at = now()
   WHERE supplier_id = $1 AND state <> 'closed'
  RETURNING episode, opened_at, (SELECT name FROM suppliers WHERE id = $1) AS name`;

/**
 * An admin closes the breaker by hand (the supplier is known to be back): a guarded update that
 * raises the episode's `supplier_up` alert like a successful probe; the window starts again.
 * Already closed: nothing changes. Answers the health after.
 */
export async function resetSupplierBreaker(deps: DomainDeps, supplierId: number, operator: Actor): Promise<SupplierHealth> {
  await getSupplierHealth(deps, supplierId);
  await closeBreaker(deps, supplierId, FORCE_CLOSE, [supplierId], operator);
  return getSupplierHealth(deps, supplierId);
}

/** Suppliers whose breaker is not closed (the dashboard's `suppliers_down`). */
export const SUPPLIERS_DOWN_COUNT_SQL = "SELECT count(*)::int AS n FROM supplier_breakers WHERE state <> 'closed'";
