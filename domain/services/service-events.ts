import type { Transaction } from 'sequelize';
import type { ServiceEventStatus } from '../../db/models/service.js';
import { onCommit } from '../../db/commit-hooks.js';
import { sqlRows, statement, type Tx } from '../../db/sql.js';
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
 * Counts a provisioning step that finished (`provisionings_total`) once the transaction that
 * wrote its row commits (`tx`; none: the row's statement has committed already). Call it after
 * that statement. Not a count of `service_events` rows at scrape time: the table grows by
 * several rows a provisioning, without bound (docs/operations.md "Metrics").
 */
export function countServiceEvent(event: Pick<ServiceEventInput, 'kind' | 'stage' | 'status'>, tx: Tx | undefined): void {
  if (event.kind !== 'provision' || event.status === 'started') return;
  onCommit(tx, () => provisionings.inc({ stage: label(event.stage), outcome: label(event.status) }));
}

/** One row of a service's history (provisioning steps, service orders, admin decisions, console actions). */
export async function recordServiceEvent(deps: DomainDeps, event: ServiceEventInput, transaction?: Transaction): Promise<void> {
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
  countServiceEvent(event, transaction);
}
