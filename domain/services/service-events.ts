import type { Transaction } from 'sequelize';
import type { ServiceEventStatus } from '../../db/models/service.js';
import type { DomainDeps } from '../deps.js';

export type ServiceEventInput = {
  serviceId: number;
  /** console, credential, settings, renew, traffic, … */
  kind: string;
  stage: string;
  status: ServiceEventStatus;
  message?: string;
  detail?: Record<string, unknown>;
  workflowId?: string | null;
  operator?: { type: 'admin' | 'user' | 'system'; id: number | null };
};

/** One row of a service's history: console actions, credential reveals, renewals, traffic packages. */
export async function recordServiceEvent(deps: DomainDeps, event: ServiceEventInput, transaction?: Transaction): Promise<void> {
  await deps.db.models.ServiceEvent.create(
    {
      service_id: event.serviceId,
      kind: event.kind,
      stage: event.stage.slice(0, 32),
      status: event.status,
      message: (event.message ?? '').slice(0, 255),
      detail: event.detail ?? {},
      workflow_id: event.workflowId ?? null,
      operator_type: event.operator?.type ?? 'system',
      operator_id: event.operator?.id ?? null,
    },
    transaction ? { transaction } : {},
  );
}
