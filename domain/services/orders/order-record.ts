import type { Transaction } from 'sequelize';
import type { ServiceOrderKind, ServiceUpstreamOrderRow } from '../../../db/models/service-upstream-order.js';
import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import type { SentMark } from '../../suppliers/send-once.js';
import type { StepJournal } from '../../suppliers/step-journal.js';
import { recordServiceEvent, type ServiceEventInput } from '../../provisioning/service-events.js';

export const SERVICE_ORDER_KIND_LABELS: Record<ServiceOrderKind, string> = { renew: '续费', traffic_package: '流量包', upgrade: '升降级' };

/** The `service_events.kind` of an order's history rows. */
function eventKindOf(kind: ServiceOrderKind): 'renew' | 'traffic' | 'upgrade' {
  return kind === 'renew' ? 'renew' : kind === 'upgrade' ? 'upgrade' : 'traffic';
}

/** One row of the order's service history (kind from the order, serviceId from its service). */
export function recordOrderEvent(
  deps: DomainDeps,
  order: Pick<ServiceUpstreamOrderRow, 'service_id' | 'kind'>,
  event: Omit<ServiceEventInput, 'serviceId' | 'kind'>,
  transaction?: Transaction,
): Promise<void> {
  return recordServiceEvent(deps, { ...event, serviceId: order.service_id, kind: eventKindOf(order.kind) }, transaction);
}

/** The order of a paid renewal, traffic-package or upgrade invoice (optionally row-locked). */
export async function loadServiceOrder(deps: DomainDeps, invoiceId: number, transaction?: Transaction): Promise<ServiceUpstreamOrderRow> {
  const order = await deps.db.models.ServiceUpstreamOrder.findOne({
    where: { invoice_id: invoiceId },
    ...(transaction ? { transaction, lock: transaction.LOCK.UPDATE } : {}),
  });
  if (!order) throw notFound('服务订单（续费、流量包或配置变更）不存在');
  return order;
}

/** The mark of an order's committing upstream request (see domain/suppliers/send-once.ts). */
export function orderMark(orderId: number, column: 'upstream_requested_at' | 'upstream_pay_requested_at'): SentMark {
  return { table: 'service_upstream_orders', key: 'id', id: orderId, column };
}

/** The order's history at the stage it is in (the row's `stage`, set as each step begins). */
export function orderJournal(deps: DomainDeps, order: Pick<ServiceUpstreamOrderRow, 'service_id' | 'kind' | 'stage'>, workflowId: string): StepJournal {
  return (entry) => recordOrderEvent(deps, order, { stage: order.stage, workflowId, ...entry });
}
