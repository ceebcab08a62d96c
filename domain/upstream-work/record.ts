import type { ServiceEventStatus } from '../../db/models/service.js';
import { sqlRows, statement, type Statement, type Tx } from '../../db/sql.js';
import { type Actor, deciderActor } from '../../lib/actor.js';
import { AWAITING_ADMIN, type UpstreamFailure } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';
import { countServiceEvent } from '../services/service-events.js';
import { failedAttemptEntry, type FailedAttempt, type JournalEntry, type StepJournal } from '../suppliers/step-journal.js';
import { homeSql, type UpstreamWorkRef, WORK_HOMES, type WorkHome, type WorkHomeName } from './kinds.js';

/**
 * The state writes of upstream work, once for every kind: each is one statement per home (its
 * text built from the home's column map, prepared once per connection), moving the row and
 * writing its history row (`service_events`) together.
 */
type HomeStatements = { enterStage: Statement; enterStageOnce: Statement; markFailed: Statement; recordEvent: Statement };

function homeStatements(home: WorkHome): HomeStatements {
  const sql = homeSql(home);
  const returning = `RETURNING w.${home.serviceId} AS service_id, ${sql.eventKind} AS kind`;
  return {
    enterStage: statement(
      `WITH moved AS (UPDATE ${home.table} w SET ${home.stage} = $2, stage_changed_at = now(), updated_at = now() WHERE w.${home.key} = $1 ${returning})
       INSERT INTO service_events (service_id, kind, stage, status, message, workflow_id)
       SELECT service_id, kind, $2, 'started', $3, $4 FROM moved RETURNING id`,
    ),
    // The same, only when the stage changes and the work is unfinished: a repeated attempt of a
    // step entering it writes nothing (not even after the step finished the work: `activate`).
    enterStageOnce: statement(
      `WITH moved AS (UPDATE ${home.table} w SET ${home.stage} = $2, stage_changed_at = now(), updated_at = now()
                       WHERE w.${home.key} = $1 AND w.${home.stage} IS DISTINCT FROM $2 AND w.status IN (${sql.open}) ${returning})
       INSERT INTO service_events (service_id, kind, stage, status, message, workflow_id)
       SELECT service_id, kind, $2, 'started', $3, $4 FROM moved RETURNING id`,
    ),
    markFailed: statement(
      `WITH parked AS (
         UPDATE ${home.table} w SET status = '${home.parked}', ${home.stage} = '${AWAITING_ADMIN}', stage_changed_at = now(),
                failure_code = $2, failure_reason = $3, updated_at = now()
          WHERE w.${home.key} = $1 AND w.status IN (${sql.open}) ${returning})
       INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id)
       SELECT service_id, kind, $4, 'failed', $3, jsonb_build_object('code', $5::text), $6 FROM parked RETURNING id`,
    ),
    // At the given stage, or (null) at the stage the work is in.
    recordEvent: statement(
      `INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id, operator_type, operator_id)
       SELECT w.${home.serviceId}, ${sql.eventKind}, COALESCE($2::varchar, NULLIF(w.${home.stage}, ''), 'prepare'), $3, $4, $5::jsonb, $6, $7, $8::int
         FROM ${home.table} w WHERE w.${home.key} = $1 RETURNING id`,
    ),
  };
}

const STATEMENTS: Record<WorkHomeName, HomeStatements> = {
  service: homeStatements(WORK_HOMES.service),
  service_order: homeStatements(WORK_HOMES.service_order),
};

/** The `service_events.kind` counted in `provisionings_total` (a provisioning is the only kind of the `service` home). */
const countedKind = (work: UpstreamWorkRef) => (work.home === 'service' ? 'provision' : 'order');

/**
 * Where the work stands, on its row (what the admin lists filter on: stage and since when) and
 * in its history (a `started` row with the stage's message): one statement, one round trip.
 */
export async function enterWorkStage(deps: DomainDeps, work: UpstreamWorkRef, input: { stage: string; workflowId: string; message?: string }): Promise<void> {
  const message = input.message ?? WORK_HOMES[work.home].stageMessages[input.stage] ?? '';
  await sqlRows(deps, STATEMENTS[work.home].enterStage, [work.id, input.stage, message.slice(0, 255), input.workflowId]);
}

/**
 * `enterWorkStage` for a step activity that records its own stage before its work (the folded
 * shape, `EnteringStage` in workflows/upstream/contract.ts): the row moves and the `started` row
 * is written only when the row is not at that stage already and the work is unfinished (an open
 * status of its home), so a retried attempt of the step (local activities retry, a worker crash
 * runs them again) never writes a second one, even once the step itself moved the row on (the
 * activation leaves `done`). One statement. Answers whether the stage was entered now.
 */
export async function enterWorkStageOnce(deps: DomainDeps, work: UpstreamWorkRef, input: { stage: string; workflowId: string }): Promise<boolean> {
  const message = WORK_HOMES[work.home].stageMessages[input.stage] ?? '';
  const rows = await sqlRows(deps, STATEMENTS[work.home].enterStageOnce, [work.id, input.stage, message.slice(0, 255), input.workflowId]);
  return rows.length > 0;
}

/**
 * The work stopped on a failure retrying cannot fix (or retries ran out): unfinished work is
 * parked (stage `awaiting_admin`, the home's parked status, the code and Chinese reason) until an
 * admin retries or cancels, with the failure as a row of its history. Finished work is left as
 * it is.
 */
export async function markWorkFailed(deps: DomainDeps, work: UpstreamWorkRef, input: { failure: UpstreamFailure; workflowId: string }): Promise<void> {
  const { failure } = input;
  const rows = await sqlRows(deps, STATEMENTS[work.home].markFailed, [
    work.id,
    failure.code.slice(0, 64),
    failure.reason.slice(0, 255),
    failure.stage,
    failure.code,
    input.workflowId,
  ]);
  if (rows.length > 0) countServiceEvent({ kind: countedKind(work), stage: failure.stage, status: 'failed' }, undefined);
}

type WorkEvent = { stage: string | null; status: ServiceEventStatus; message: string; detail?: Record<string, unknown>; operator?: Actor | null };

async function recordWorkEvent(deps: DomainDeps, work: UpstreamWorkRef, workflowId: string, event: WorkEvent, tx?: Tx): Promise<void> {
  const operator = event.operator ? deciderActor(event.operator) : null;
  await sqlRows(
    deps,
    STATEMENTS[work.home].recordEvent,
    [
      work.id,
      event.stage,
      event.status,
      event.message.slice(0, 255),
      JSON.stringify(event.detail ?? {}),
      workflowId,
      operator?.type ?? 'system',
      operator?.id ?? null,
    ],
    tx,
  );
}

/**
 * A failed attempt of an upstream step that will be retried, as a row of the work's history at
 * the stage it is in: a slow piece of work shows each retry and why.
 */
export async function recordWorkAttempt(deps: DomainDeps, work: UpstreamWorkRef, workflowId: string, attempt: FailedAttempt): Promise<void> {
  await recordWorkEvent(deps, work, workflowId, { stage: null, ...failedAttemptEntry(attempt) });
}

/**
 * The row "管理员 X 重试" of an admin's retry, written by the work's prepare step in its own
 * transaction when it runs again after the decision (stage `retry`, the admin as operator).
 */
export async function recordAdminRetry(deps: DomainDeps, work: UpstreamWorkRef, input: { retriedBy: Actor; workflowId: string }, tx?: Tx): Promise<void> {
  const event = { stage: 'retry', status: 'info' as const, message: `管理员 ${input.retriedBy.name} 重试`, operator: input.retriedBy };
  await recordWorkEvent(deps, work, input.workflowId, event, tx);
  countServiceEvent({ kind: countedKind(work), stage: event.stage, status: event.status }, tx);
}

/**
 * The work's history as a step journal (domain/suppliers/step-journal.ts: reconciliations and
 * failed attempts), at `stage`, or at the stage the work is in.
 */
export function workJournal(deps: DomainDeps, work: UpstreamWorkRef, workflowId: string, stage: string | null = null): StepJournal {
  return async (entry: JournalEntry) => {
    await recordWorkEvent(deps, work, workflowId, { stage, ...entry });
    countServiceEvent({ kind: countedKind(work), stage: stage ?? '', status: entry.status }, undefined);
  };
}
