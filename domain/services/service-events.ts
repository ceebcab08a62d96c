import type { Transaction } from 'sequelize';
import type { ServiceEventStatus } from '../../db/models/service.js';
import { sqlRows, statement } from '../../db/sql.js';
import { label, provisionings } from '../../lib/metrics.js';
import type { DomainDeps } from '../deps.js';

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

/**
 * Counts a provisioning step that finished (`provisionings_total`), when its row is written; a
 * transaction rolled back afterwards (rare) counts once too many.
 */
export function countServiceEvent(event: Pick<ServiceEventInput, 'kind' | 'stage' | 'status'>): void {
  if (event.kind === 'provision' && event.status !== 'started') provisionings.inc({ stage: label(event.stage), outcome: label(event.status) });
}

/** One row of a service's history (provisioning steps, service orders, admin decisions, console actions). */
export async function recordServiceEvent(deps: DomainDeps, event: ServiceEventInput, transaction?: Transaction): Promise<void> {
  countServiceEvent(event);
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
