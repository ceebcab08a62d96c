import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import type { TaskRunContext } from '../tasks/types.js';
import { addToTally, emptyTally, type NoticeOutcome, type NoticeTally } from './notice.js';
import { addDays, invoiceUnpaidNotice, type NoticeService, serviceSuspendedNotice, serviceTerminatedNotice } from './notice-texts.js';
import { availableChannels, type ChannelAvailability, closeAbandonedClaims, sendNotice } from './send-notice.js';

/** Suspension and termination notices are sent for state changes of the last days only (never for old history). */
const STATE_NOTICE_WINDOW_DAYS = 3;

type StateRow = NoticeService & {
  user_id: number;
  email: string | null;
  phone: string | null;
  suspended_at: Date | null;
  terminated_at: Date | null;
};

type UnpaidRow = { id: number; invoice_no: string; subject: string; amount: string; type: string; created_at: Date; user_id: number; email: string | null; phone: string | null };

/** Overdue suspensions (`suspend_reason` overdue) and lifecycle terminations of the last days, or of the given services. */
async function stateRows(deps: DomainDeps, kind: 'service_suspended' | 'service_terminated', serviceIds: number[] | null): Promise<StateRow[]> {
  const condition =
    kind === 'service_suspended'
      ? `s.status = 'suspended' AND s.suspend_reason = 'overdue' AND s.suspended_at > now() - make_interval(days => $1)`
      : `s.status = 'terminated' AND s.terminated_at > now() - make_interval(days => $1)
         AND EXISTS (SELECT 1 FROM service_events e WHERE e.service_id = s.id AND e.kind = 'lifecycle' AND e.stage = 'terminate' AND e.status = 'succeeded')`;
  return sqlRows<StateRow>(
    deps,
    `SELECT s.id, s.user_id, s.product_name, s.hostname, s.ip, s.billing_period, s.price, s.auto_renew, s.next_due_at,
            s.suspended_at, s.terminated_at, u.email, u.phone
       FROM services s JOIN users u ON u.id = s.user_id
      WHERE ${condition} AND s.next_due_at IS NOT NULL AND ($2::int[] IS NULL OR s.id = ANY($2::int[]))
      ORDER BY s.id`,
    [STATE_NOTICE_WINDOW_DAYS, serviceIds],
  );
}

async function sendStateNotices(
  deps: DomainDeps,
  kind: 'service_suspended' | 'service_terminated',
  serviceIds: number[] | null,
  channels: ChannelAvailability,
  taskRunId: number | null,
): Promise<NoticeTally> {
  const tally = emptyTally();
  const { siteName } = deps.config;
  for (const row of await stateRows(deps, kind, serviceIds)) {
    const user = { id: row.user_id, email: row.email, phone: row.phone };
    const notice =
      kind === 'service_suspended'
        ? serviceSuspendedNotice(siteName, {
            service: row,
            user,
            suspendedAt: row.suspended_at ?? new Date(),
            terminateAt: addDays(row.suspended_at ?? new Date(), deps.config.lifecycle.terminateAfterDays),
          })
        : serviceTerminatedNotice(siteName, { service: row, user, terminatedAt: row.terminated_at ?? new Date() });
    addToTally(tally, await sendNotice(deps, notice, channels, { taskRunId }));
  }
  return tally;
}

/**
 * The suspension or termination notice of services the lifecycle jobs just changed, sent at
 * once; the hourly notices task is the backstop for any that failed or were skipped.
 */
export async function notifyServiceState(
  deps: DomainDeps,
  kind: 'service_suspended' | 'service_terminated',
  serviceIds: number[],
  taskRunId: number | null,
): Promise<NoticeTally> {
  if (serviceIds.length === 0) return emptyTally();
  return sendStateNotices(deps, kind, serviceIds, await availableChannels(deps), taskRunId);
}

/**
 * Unpaid invoices cancelled as stale by age (`staleWhen: 'days_old'`: purchases and traffic
 * packages), once, `INVOICE_UNPAID_REMINDER_HOURS` after creation (not while a QR payment is
 * open, not once the stale-invoice job would cancel them);
 * suspension and termination notices not yet sent; claims abandoned by a crash closed as unknown.
 */
export async function sendAccountNotices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId'>): Promise<Record<string, unknown>> {
  const { unpaidReminderHours, staleInvoiceDays } = deps.config.lifecycle;
  const channels = await availableChannels(deps);
  const abandoned = await closeAbandonedClaims(deps);

  const unpaid = emptyTally();
  const invoices = await sqlRows<UnpaidRow>(
    deps,
    `SELECT i.id, i.invoice_no, i.subject, i.amount, i.type, i.created_at, i.user_id, u.email, u.phone
       FROM invoices i JOIN users u ON u.id = i.user_id
      WHERE i.status = 'unpaid' AND i.type = ANY($3::text[])
        AND i.created_at <= now() - make_interval(hours => $1) AND i.created_at > now() - make_interval(days => $2)
        AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id AND p.status = 'pending')
      ORDER BY i.id`,
    [unpaidReminderHours, staleInvoiceDays, invoiceTypesWhere('staleWhen', 'days_old')],
  );
  for (const row of invoices) {
    const notice = invoiceUnpaidNotice(deps.config.siteName, {
      invoice: row,
      user: { id: row.user_id, email: row.email, phone: row.phone },
      cancelAt: addDays(row.created_at, staleInvoiceDays),
    });
    const outcome: NoticeOutcome = await sendNotice(deps, notice, channels, { taskRunId: run.taskRunId });
    addToTally(unpaid, outcome);
  }
  return {
    mail_available: channels.mail,
    sms_available: channels.sms,
    abandoned_claims_closed: abandoned,
    invoice_unpaid: unpaid,
    service_suspended: await sendStateNotices(deps, 'service_suspended', null, channels, run.taskRunId),
    service_terminated: await sendStateNotices(deps, 'service_terminated', null, channels, run.taskRunId),
  };
}
