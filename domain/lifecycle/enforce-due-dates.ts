import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { notifyServiceState } from '../notifications/send-account-notices.js';
import type { TaskRunContext } from '../tasks/types.js';
import { changeServiceState, type LockedService, type StateTransition, type TransitionOutcome } from './change-service-state.js';
import { RENEWAL_PAID_NOT_APPLIED } from './renewal-state.js';

const DAY_MS = 86_400_000;

/** Services one run looks at, oldest first; the rest wait for the next run. */
const BATCH = 500;

type Tally = Record<TransitionOutcome, number> & { candidates: number };

function emptyTally(): Tally {
  return { candidates: 0, changed: 0, changed_locally: 0, skipped: 0, refused: 0, failed: 0, unconfirmed: 0 };
}

async function runTransition(
  deps: DomainDeps,
  run: Pick<TaskRunContext, 'taskRunId'>,
  transition: StateTransition,
  candidates: { sql: string; bind: unknown[] },
  eligible: (service: LockedService, now: Date) => boolean,
): Promise<{ tally: Tally; changedIds: number[] }> {
  const tally = emptyTally();
  const changedIds: number[] = [];
  const rows = await sqlRows<{ id: number }>(deps, candidates.sql, candidates.bind);
  tally.candidates = rows.length;
  for (const { id } of rows) {
    const outcome = await changeServiceState(deps, { serviceId: id, transition, taskRunId: run.taskRunId, eligible: (s) => eligible(s, new Date()) });
    tally[outcome] += 1;
    if (outcome === 'changed' || outcome === 'changed_locally') changedIds.push(id);
  }
  return { tally, changedIds };
}

/** Active, past the due date by `SUSPEND_AFTER_DAYS`, and no paid renewal on its way. */
function overdueForSuspension(deps: DomainDeps) {
  const days = deps.config.lifecycle.suspendAfterDays;
  return (s: LockedService, now: Date) =>
    s.status === 'active' && s.next_due_at !== null && s.next_due_at.getTime() <= now.getTime() - days * DAY_MS && !s.renewal_pending;
}

/**
 * Suspends active services `SUSPEND_AFTER_DAYS` past their due date, through the upstream (the
 * local state changes only once the upstream confirmed), then sends each its suspension notice.
 */
export async function suspendOverdueServices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId'>) {
  const { tally, changedIds } = await runTransition(
    deps,
    run,
    'suspend',
    {
      sql: `SELECT s.id FROM services s
             WHERE s.status = 'active' AND s.next_due_at <= now() - make_interval(days => $1) AND NOT ${RENEWAL_PAID_NOT_APPLIED}
             ORDER BY s.next_due_at, s.id LIMIT ${BATCH}`,
      bind: [deps.config.lifecycle.suspendAfterDays],
    },
    overdueForSuspension(deps),
  );
  const notices = await notifyServiceState(deps, 'service_suspended', changedIds, run.taskRunId);
  return { ...tally, suspend_after_days: deps.config.lifecycle.suspendAfterDays, notices };
}

/**
 * Terminates services suspended for non-payment `TERMINATE_AFTER_DAYS` ago and still unpaid,
 * through the upstream, then sends each its termination notice.
 */
export async function terminateOverdueServices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId'>) {
  const days = deps.config.lifecycle.terminateAfterDays;
  const { tally, changedIds } = await runTransition(
    deps,
    run,
    'terminate',
    {
      sql: `SELECT s.id FROM services s
             WHERE s.status = 'suspended' AND s.suspend_reason = 'overdue' AND s.suspended_at <= now() - make_interval(days => $1)
               AND s.next_due_at <= now() AND NOT ${RENEWAL_PAID_NOT_APPLIED}
             ORDER BY s.suspended_at, s.id LIMIT ${BATCH}`,
      bind: [days],
    },
    (s, now) =>
      s.status === 'suspended' &&
      s.suspend_reason === 'overdue' &&
      s.suspended_at !== null &&
      s.suspended_at.getTime() <= now.getTime() - days * DAY_MS &&
      s.next_due_at !== null &&
      s.next_due_at.getTime() <= now.getTime() &&
      !s.renewal_pending,
  );
  const notices = await notifyServiceState(deps, 'service_terminated', changedIds, run.taskRunId);
  return { ...tally, terminate_after_days: days, notices };
}

/**
 * Lifts overdue suspensions of services renewed meanwhile (due date in the future again),
 * through the upstream. Suspensions for other reasons (an admin's) are never lifted here.
 */
export async function unsuspendRenewedServices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId'>) {
  const { tally } = await runTransition(
    deps,
    run,
    'unsuspend',
    {
      sql: `SELECT s.id FROM services s
             WHERE s.status = 'suspended' AND s.suspend_reason = 'overdue' AND s.next_due_at > now()
             ORDER BY s.id LIMIT ${BATCH}`,
      bind: [],
    },
    (s, now) => s.status === 'suspended' && s.suspend_reason === 'overdue' && s.next_due_at !== null && s.next_due_at.getTime() > now.getTime(),
  );
  return tally;
}
