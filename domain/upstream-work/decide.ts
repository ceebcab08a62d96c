import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { sqlOne, type Statement, statement } from '../../db/sql.js';
import { AppError, notFound } from '../../lib/errors.js';
import { isTemporalUnavailable, REQUEST_DEADLINE_MS, TemporalUnavailableError } from '../../lib/temporal.js';
import { AWAITING_ADMIN, AWAITING_UPSTREAM_FUNDS, STAGE_AFTER_DECISION, type UpstreamDecision, type UpstreamState } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';
import { findIntent, type IntentKind, markIntentDone, recordIntent, shortError, TRY_NOW_GRACE_MS } from '../outbox/intents.js';
import { homeOfIntent, homeSql, UPSTREAM_WORK_KINDS, type UpstreamWorkKind, type UpstreamWorkRef, WORK_HOMES, type WorkHome, type WorkHomeName } from './kinds.js';

type WaitingRow = { kind: UpstreamWorkKind; service_id: number; invoice_no: string; status: string; stage: string; stage_changed_at: Date | null };

/** Where a piece of work stands, read by its key: one statement per home. */
const READ: Record<WorkHomeName, Statement> = {
  service: readStatement(WORK_HOMES.service),
  service_order: readStatement(WORK_HOMES.service_order),
};

function readStatement(home: WorkHome) {
  return statement(
    `SELECT ${homeSql(home).kind} AS kind, w.${home.serviceId} AS service_id, i.invoice_no, w.status, w.${home.stage} AS stage, w.stage_changed_at
       FROM ${home.table} w LEFT JOIN invoices i ON i.id = w.invoice_id WHERE w.${home.key} = $1`,
  );
}

export type DecisionOutcome = {
  /** True: the workflow took the decision now. False: Temporal or the worker did not answer in time; the decision is recorded and delivered when they are back. */
  delivered: boolean;
  /** The stage after the decision (`STAGE_AFTER_DECISION`) when delivered; the database's when not. */
  stage: string;
};

/**
 * An admin's decision on upstream work waiting for one, any kind: `retry` (the same references,
 * so nothing is bought twice) or `cancel` (refund to the balance). The database must say it
 * waits (stage `awaiting_admin`, or for a cancel `awaiting_upstream_funds`; the home's code otherwise: 40931 for a provisioning, 40945 for
 * a service order). The decision is recorded in the outbox first (one per wait: a second click
 * with the same decision is the same row; a different one is refused), then delivered as the
 * kind's decide update with the outbox key as update id within the request deadline; when
 * Temporal or the worker does not answer in time the answer says `delivered: false` and the
 * outbox relay delivers it later. The workflow refusing it is the home's code too.
 */
export async function decideUpstreamWork(deps: DomainDeps, work: UpstreamWorkRef, decision: UpstreamDecision): Promise<DecisionOutcome> {
  const home: WorkHome = WORK_HOMES[work.home];
  const row = await sqlOne<WaitingRow>(deps, READ[work.home], [work.id]);
  if (!row) throw notFound(home.notFound);
  const kind = UPSTREAM_WORK_KINDS[row.kind];
  const refused = (message: string) => new AppError(home.errorCode, message, { status: row.status });
  // Work waiting for upstream funds resumes by itself; an admin may only cancel it meanwhile.
  const cancelWhileFunding = row.stage === AWAITING_UPSTREAM_FUNDS && decision.action === 'cancel';
  if (row.stage !== AWAITING_ADMIN && !cancelWhileFunding) throw refused(kind.messages.notAwaiting);
  const key = home.intent.key(work.id, row.stage_changed_at);
  const payload = home.intent.payload(work.id, kind.workflow.id({ serviceId: row.service_id, invoiceNo: row.invoice_no }), decision);
  if (!(await recordIntent(deps, { kind: home.intent.kind, key, payload, delayMs: TRY_NOW_GRACE_MS }))) {
    const earlier = await findIntent(deps, key);
    if ((earlier?.payload['decision'] as UpstreamDecision | undefined)?.action !== decision.action) throw refused(kind.messages.otherDecision);
  }
  try {
    await deliverUpstreamDecision(deps, { kind: home.intent.kind, key, payload }, REQUEST_DEADLINE_MS);
    await markIntentDone(deps, key);
    return { delivered: true, stage: STAGE_AFTER_DECISION[decision.action] };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      await markIntentDone(deps, key, `refused: ${shortError(err)}`);
      throw refused(kind.messages.notAwaiting);
    }
    if (!isTemporalUnavailable(err)) throw err;
    deps.logger.warn({ err, work }, 'upstream work decision not delivered now; the outbox relay delivers it');
    return { delivered: false, stage: row.stage };
  }
}

/**
 * Delivers a recorded decision (an outbox row of a home's decision kind) as that home's decide
 * update, with the row's key as update id: Temporal answers a repeated update id with the first
 * one's outcome, so the API and the relay may both deliver it. Throws WorkflowUpdateFailedError
 * when the workflow refuses it.
 */
export async function deliverUpstreamDecision(
  deps: DomainDeps,
  intent: { kind: IntentKind; key: string; payload: Record<string, unknown> },
  deadlineMs: number,
): Promise<UpstreamState<string>> {
  const home = homeOfIntent(intent.kind);
  if (!home) throw new Error(`outbox kind ${intent.kind} carries no upstream work decision`);
  if (!deps.temporal) throw new TemporalUnavailableError('no Temporal client in these deps');
  const decision = intent.payload['decision'] as UpstreamDecision;
  const workflowId = home.intent.workflowId(intent.payload);
  return deps.temporal.withDeadline(
    (client) => client.workflow.getHandle(workflowId).executeUpdate(home.update, { args: [decision], updateId: intent.key }),
    deadlineMs,
  );
}
