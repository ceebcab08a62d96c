import { WorkflowNotFoundError } from '@temporalio/client';
import type { DomainDeps } from '../deps.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import { BACKGROUND_DEADLINE_MS } from '../../lib/temporal.js';
import { provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { FULFILMENT_KEY_PREFIX, fulfilmentIntent, OUTBOX_CHANNEL, recordIntent } from '../outbox/intents.js';
import { FULFILLED_TYPES } from './dispatch-fulfilment.js';

export type FulfilmentRepairSummary = {
  /** Paid invoices whose dispatch was still not recorded: what the relay left undone; should be 0. */
  found: number;
  /** Of them: without a `fulfil:` outbox row (inserted now, due at once). */
  inserted: number;
  /** Of them: whose row was stuck (done, or put off further than the relay ever puts one off), made due again. */
  reopened: number;
  /** Of them: whose row is the relay's already (due, claimed or backing off); left as it is. */
  waiting: number;
  /** Of the waiting: whose last attempt failed, its reason in `errors`. */
  failed: number;
  invoiceIds: { inserted: number[]; reopened: number[]; waiting: number[] };
  errors: Array<{ invoiceId: number; error: string }>;
  /**
   * Purchases recorded as dispatched whose services are not provisioned and whose provisioning
   * workflow Temporal does not know (Temporal's data restored to an earlier instant than the
   * platform's, docs/production.md "After a restore"): undispatched and their row made due again.
   */
  unknownToTemporal: number[];
  /** Outbox rows not done yet (any kind), and those of them due for over 5 minutes (no relay took them: is a worker running?). */
  outboxPending: number;
  outboxOverdue: number;
};

/** Farther ahead than any lease (60 s) or backoff (120 s) of the relay puts a row: stuck. */
const STUCK_AHEAD_SECONDS = 300;

/**
 * The paid, undispatched invoices (paid at least `graceSeconds` ago, so the relay is not raced)
 * with their stuck outbox rows (done although the invoice is not dispatched, or put off too far)
 * made due again in the same statement, waking the relay; a missing row is `missing`, recorded
 * next by `recordIntent`. Rows the relay holds are left alone.
 */
const REPAIR = `
  WITH pending AS (
    SELECT i.id, o.id AS outbox_id, o.done_at, o.next_attempt_at, o.last_error
      FROM invoices i LEFT JOIN outbox o ON o.key = $1 || i.id
     WHERE i.dispatched_at IS NULL AND i.paid_at IS NOT NULL AND i.status IN ('paid', 'partially_refunded')
       AND i.type = ANY($2::varchar[]) AND i.paid_at < now() - make_interval(secs => $3)
     ORDER BY i.paid_at LIMIT $4
  ), reopened AS (
    UPDATE outbox o SET done_at = NULL, next_attempt_at = now(), updated_at = now()
      FROM pending p
     WHERE o.id = p.outbox_id AND (p.done_at IS NOT NULL OR p.next_attempt_at > now() + make_interval(secs => $6))
    RETURNING (o.payload->>'invoice_id')::int AS invoice_id, pg_notify($5, '0')
  )
  SELECT p.id AS invoice_id, p.last_error,
         CASE WHEN p.outbox_id IS NULL THEN 'missing'
              WHEN p.id IN (SELECT invoice_id FROM reopened) THEN 'reopened'
              ELSE 'waiting' END AS repair
    FROM pending p ORDER BY p.id`;

/** Dispatched purchases with a service still being provisioned (each must have its workflow). */
const DISPATCHED_UNFINISHED = `
  SELECT DISTINCT ON (s.invoice_id) s.invoice_id, s.id AS service_id
    FROM services s JOIN invoices i ON i.id = s.invoice_id
   WHERE s.status IN ('pending', 'provisioning') AND i.dispatched_at IS NOT NULL
     AND i.dispatched_at < now() - make_interval(secs => $1) AND i.type = ANY($2::varchar[])
   ORDER BY s.invoice_id, s.id LIMIT $3`;

/** The dispatch undone and the `fulfil:` row due again (inserted when missing), in one statement. */
const REDISPATCH = `
  WITH undone AS (UPDATE invoices SET dispatched_at = NULL, updated_at = now() WHERE id = $2 AND dispatched_at IS NOT NULL RETURNING id),
  reopened AS (
    INSERT INTO outbox (kind, key, payload, next_attempt_at)
    SELECT 'start_fulfilment', $1 || id, jsonb_build_object('invoice_id', id), now() FROM undone
    ON CONFLICT (key) DO UPDATE SET done_at = NULL, next_attempt_at = now(), updated_at = now()
    RETURNING id)
  SELECT count(*)::int AS n, pg_notify($3, '0') FROM reopened`;

async function redispatchUnknownToTemporal(deps: DomainDeps, graceSeconds: number, limit: number): Promise<number[]> {
  const temporal = deps.temporal;
  if (!temporal) return [];
  const rows = await sqlRows<{ invoice_id: number; service_id: number }>(deps, DISPATCHED_UNFINISHED, [graceSeconds, invoiceTypesWhere('fulfilment', 'provisioning'), limit]);
  const reopened: number[] = [];
  for (const row of rows) {
    const known = await temporal
      .withDeadline((client) => client.workflow.getHandle(provisionWorkflowId(row.service_id)).describe(), BACKGROUND_DEADLINE_MS)
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        },
      );
    if (known) continue;
    await sqlRows(deps, REDISPATCH, [FULFILMENT_KEY_PREFIX, row.invoice_id, OUTBOX_CHANNEL]);
    reopened.push(row.invoice_id);
  }
  return reopened;
}

/**
 * The hourly report and repair behind the outbox (task `billing.redispatch_fulfilment`): it never
 * dispatches. The relay is the one owner of fulfilment; this finds the paid invoices whose
 * dispatch is not recorded, gives each a due `fulfil:` row (inserted when missing, reopened when
 * stuck) for the relay to perform, and reports counts and invoice ids, with the outbox's backlog.
 * Anything found means the relay did not do its job in time: logged as a warning. Safe at any time.
 * It also asks Temporal for the provisioning workflow of each dispatched purchase still being
 * provisioned, and dispatches again those it does not know (after a restore; the start is
 * idempotent and the downstream reference deterministic, so nothing is bought twice upstream).
 */
export async function repairFulfilmentOutbox(deps: DomainDeps, options: { graceSeconds?: number; limit?: number } = {}): Promise<FulfilmentRepairSummary> {
  const found = await sqlRows<{ invoice_id: number; last_error: string | null; repair: 'missing' | 'reopened' | 'waiting' }>(deps, REPAIR, [
    FULFILMENT_KEY_PREFIX,
    FULFILLED_TYPES,
    options.graceSeconds ?? 60,
    options.limit ?? 200,
    OUTBOX_CHANNEL,
    STUCK_AHEAD_SECONDS,
  ]);
  // A missing row is the fulfilment promise the settlement makes, recorded the one way (a row written meanwhile: the relay's).
  const rows: Array<{ invoice_id: number; last_error: string | null; repair: 'inserted' | 'reopened' | 'waiting' }> = [];
  for (const row of found) {
    const repair = row.repair === 'missing' ? ((await recordIntent(deps, fulfilmentIntent(row.invoice_id))) ? 'inserted' : 'waiting') : row.repair;
    rows.push({ ...row, repair });
  }
  const unknownToTemporal = await redispatchUnknownToTemporal(deps, options.graceSeconds ?? 60, options.limit ?? 200);
  const backlog = await sqlOne<{ pending: number; overdue: number }>(
    deps,
    `SELECT count(*)::int AS pending, (count(*) FILTER (WHERE next_attempt_at < now() - interval '5 minutes'))::int AS overdue
       FROM outbox WHERE done_at IS NULL`,
    [],
  );
  const ids = (repair: string) => rows.filter((r) => r.repair === repair).map((r) => r.invoice_id);
  const errors = rows.flatMap((r) => (r.repair === 'waiting' && r.last_error ? [{ invoiceId: r.invoice_id, error: r.last_error }] : []));
  const invoiceIds = { inserted: ids('inserted'), reopened: ids('reopened'), waiting: ids('waiting') };
  const summary: FulfilmentRepairSummary = {
    found: rows.length,
    inserted: invoiceIds.inserted.length,
    reopened: invoiceIds.reopened.length,
    waiting: invoiceIds.waiting.length,
    failed: errors.length,
    invoiceIds,
    errors,
    unknownToTemporal,
    outboxPending: backlog?.pending ?? 0,
    outboxOverdue: backlog?.overdue ?? 0,
  };
  if (summary.found > 0 || summary.outboxOverdue > 0 || unknownToTemporal.length > 0) deps.logger.warn(summary, 'the fulfilment backstop had work: the outbox relay is late or failing');
  return summary;
}
