import type { Transaction } from 'sequelize';
import type { ServiceEventStatus } from '../../db/models/service.js';
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

/** One row of a service's history (provisioning steps, admin decisions, console actions). */
export async function recordServiceEvent(deps: DomainDeps, event: ServiceEventInput, transaction?: Transaction): Promise<void> {
  await deps.db.models.ServiceEvent.create(
    {
      service_id: event.serviceId,
      kind: event.kind,
      stage: event.stage,
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

/**
 * Where a provisioning stands, on the service (what the admin list filters on: stage and since
 * when) and in its history.
 */
export async function enterProvisioningStage(deps: DomainDeps, input: { serviceId: number; stage: string; workflowId: string; message?: string }): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    await deps.db.models.Service.update(
      { provisioning_stage: input.stage, stage_changed_at: new Date() },
      { where: { id: input.serviceId }, transaction },
    );
    await recordServiceEvent(
      deps,
      { serviceId: input.serviceId, kind: 'provision', stage: input.stage, status: 'started', message: input.message ?? '', workflowId: input.workflowId },
      transaction,
    );
  });
}
