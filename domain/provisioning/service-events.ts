import type { Transaction } from 'sequelize';
import type { ServiceEventStatus } from '../../db/models/service.js';
import type { DomainDeps } from '../deps.js';
import { type FailedAttempt, failedAttemptEntry } from '../suppliers/step-journal.js';
import { sqlRows, statement } from '../../db/sql.js';
import { label, provisionings } from '../../lib/metrics.js';

export type ServiceEventInput = {
  serviceId: number;
  kind: string;
  stage: string;
  status: ServiceEventStatus;
  message?: string;
  detail?: Record<string, unknown>;
  workflowId?: string | null;
  operator?: { type: 'admin' | 'user' | 'system'; id: number | null };
};

const INSERT_EVENT = statement(
  `INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id, operator_type, operator_id)
   VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) RETURNING id`,
);

/** One row of a service's history (provisioning steps, admin decisions, console actions). */
export async function recordServiceEvent(deps: DomainDeps, event: ServiceEventInput, transaction?: Transaction): Promise<void> {
  // Counted when written; a transaction rolled back afterwards (rare) counts once too many.
  if (event.kind === 'provision' && event.status !== 'started') provisionings.inc({ stage: label(event.stage), outcome: label(event.status) });
  await sqlRows(
    deps,
    INSERT_EVENT,
    [
      event.serviceId,
      event.kind,
      event.stage,
      event.status,
      (event.message ?? '').slice(0, 255),
      JSON.stringify(event.detail ?? {}),
      event.workflowId ?? null,
      event.operator?.type ?? 'system',
      event.operator?.id ?? null,
    ],
    transaction,
  );
}

/** Every stage of every provisioning: one prepared statement. */
const ENTER_STAGE = statement(
  `WITH moved AS (UPDATE services SET provisioning_stage = $2, stage_changed_at = now(), updated_at = now() WHERE id = $1 RETURNING id)
   INSERT INTO service_events (service_id, kind, stage, status, message, workflow_id)
   SELECT id, 'provision', $2, 'started', $3, $4 FROM moved RETURNING id`,
);

/**
 * Where a provisioning stands, on the service (what the admin list filters on: stage and since
 * when) and in its history: one statement, so one round trip per step.
 */
export async function enterProvisioningStage(deps: DomainDeps, input: { serviceId: number; stage: string; workflowId: string; message?: string }): Promise<void> {
  await sqlRows(deps, ENTER_STAGE, [input.serviceId, input.stage, (input.message ?? '').slice(0, 255), input.workflowId]);
}

const RECORD_ATTEMPT = statement(
  `INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id)
   SELECT id, 'provision', COALESCE(NULLIF(provisioning_stage, ''), 'prepare'), $2, $3, CAST($4 AS jsonb), $5 FROM services WHERE id = $1`,
);

/**
 * A failed attempt of an upstream step, as a row of the step history at the stage the
 * provisioning is in (one statement): a slow provisioning shows each retry and why.
 */
export async function recordProvisioningAttempt(deps: DomainDeps, input: { serviceId: number; workflowId: string }, attempt: FailedAttempt): Promise<void> {
  const entry = failedAttemptEntry(attempt);
  await sqlRows(deps, RECORD_ATTEMPT, [input.serviceId, entry.status, entry.message.slice(0, 255), JSON.stringify(entry.detail), input.workflowId]);
}
