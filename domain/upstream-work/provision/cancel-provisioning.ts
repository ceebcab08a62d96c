import { money } from '../../../lib/money.js';
import { actorAudit } from '../../billing/audit.js';
import { createRefund } from '../../billing/refunds/create-refund.js';
import { type Actor, deciderActor } from '../../../lib/actor.js';
import type { DomainDeps } from '../../deps.js';
import { recordServiceEvent } from '../../services/service-events.js';

/** The trace id of the one refund a cancelled provisioning may make. */
export function cancellationTraceId(serviceId: number): string {
  return `provision-cancel:${serviceId}`;
}

/**
 * An admin cancelled a provisioning that cannot complete: the service's price goes back to the
 * user's balance (a refund of its share of the purchase invoice, made at most once: it is found
 * again by its trace id on a retry), then the service is `cancelled`.
 */
export async function cancelProvisioning(
  deps: DomainDeps,
  input: { serviceId: number; decider: Actor; reason: string; workflowId: string },
): Promise<{ refundNo: string | null }> {
  const service = await deps.db.models.Service.findByPk(input.serviceId);
  if (!service) throw new Error(`service ${input.serviceId} not found`);
  if (service.status === 'cancelled') return { refundNo: null };
  const traceId = cancellationTraceId(input.serviceId);
  let refund = await deps.db.models.Refund.findOne({ where: { trace_id: traceId, status: ['processing', 'succeeded'] } });
  if (!refund && money(service.price).greaterThan(0)) {
    const created = await createRefund(
      deps,
      {
        userId: service.user_id,
        invoiceId: service.invoice_id,
        method: 'balance',
        amount: money(service.price),
        reason: `开通取消：${input.reason}`.slice(0, 255),
        scope: ['order'],
      },
      { ...actorAudit(deciderActor(input.decider), traceId), traceId },
    );
    refund = await deps.db.models.Refund.findByPk(created.refund.id);
  }
  await deps.db.sequelize.transaction(async (transaction) => {
    await deps.db.models.Service.update(
      { status: 'cancelled', cancelled_at: new Date(), provisioning_stage: 'cancelled', stage_changed_at: new Date() },
      { where: { id: input.serviceId }, transaction },
    );
    await recordServiceEvent(
      deps,
      {
        serviceId: input.serviceId,
        kind: 'provision',
        stage: 'cancel',
        status: 'succeeded',
        message: refund ? `已取消开通，退款 ${refund.amount} 元至余额` : '已取消开通',
        detail: { refund_no: refund?.refund_no ?? null, reason: input.reason },
        workflowId: input.workflowId,
        operator: deciderActor(input.decider),
      },
      transaction,
    );
  });
  return { refundNo: refund?.refund_no ?? null };
}
