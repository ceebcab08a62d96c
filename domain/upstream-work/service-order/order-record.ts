import type { Transaction } from 'sequelize';
import { SERVICE_ORDER_KINDS, type ServiceOrderKind, type ServiceOrderRow } from '../../../db/models/service-order.js';
import { INVOICE_KINDS } from '../../billing/invoice-kinds.js';
import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import type { SentMark } from '../../suppliers/send-once.js';
import { UPSTREAM_WORK_KINDS, WORK_HOMES } from '../kinds.js';
import { recordServiceEvent, type ServiceEventInput } from '../../services/service-events.js';

export const SERVICE_ORDER_KIND_LABELS = Object.fromEntries(SERVICE_ORDER_KINDS.map((kind) => [kind, INVOICE_KINDS[kind].label])) as Record<ServiceOrderKind, string>;

/** One row of the order's service history (kind from the order, serviceId from its service). */
export function recordOrderEvent(
  deps: DomainDeps,
  order: Pick<ServiceOrderRow, 'service_id' | 'kind'>,
  event: Omit<ServiceEventInput, 'serviceId' | 'kind'>,
  transaction?: Transaction,
): Promise<void> {
  return recordServiceEvent(deps, { ...event, serviceId: order.service_id, kind: UPSTREAM_WORK_KINDS[order.kind].eventKind }, transaction);
}

/** The order of a paid renewal, traffic-package or upgrade invoice (optionally row-locked). */
export async function loadServiceOrder(deps: DomainDeps, invoiceId: number, transaction?: Transaction): Promise<ServiceOrderRow> {
  const order = await deps.db.models.ServiceOrder.findOne({
    where: { invoice_id: invoiceId },
    ...(transaction ? { transaction, lock: transaction.LOCK.UPDATE } : {}),
  });
  if (!order) throw notFound(WORK_HOMES.service_order.notFound);
  return order;
}

/** The mark of an order's committing upstream request (see domain/suppliers/send-once.ts). */
export function orderMark(orderId: number, column: 'upstream_requested_at' | 'upstream_pay_requested_at'): SentMark {
  return { table: 'service_orders', key: 'id', id: orderId, column };
}

