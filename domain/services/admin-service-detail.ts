import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { findServiceView } from './find-service.js';
import type { ServiceView } from './service-view.js';

export type ServiceEventSummary = {
  id: number;
  kind: string;
  stage: string;
  status: string;
  message: string;
  workflow_id: string | null;
  operator_type: string;
  operator_id: number | null;
  created_at: Date;
};

export type ServiceOrderSummary = { invoice_id: number; kind: string; status: string; stage: string; amount: string; failure_reason: string | null; created_at: Date };

/** How many of the latest events and orders the admin detail shows (the rest: the lists). */
export const ADMIN_DETAIL_EVENTS = 20;
export const ADMIN_DETAIL_ORDERS = 10;

/** A service for ops: the console view, its upstream binding (in the view), its latest events and renewal / traffic orders. */
export async function getAdminServiceDetail(deps: DomainDeps, serviceId: number): Promise<{ view: ServiceView; events: ServiceEventSummary[]; orders: ServiceOrderSummary[] }> {
  const view = await findServiceView(deps, serviceId);
  const [events, orders] = await Promise.all([
    sqlRows<ServiceEventSummary>(
      deps,
      `SELECT id, kind, stage, status, message, workflow_id, operator_type, operator_id, created_at
         FROM service_events WHERE service_id = $1 ORDER BY id DESC LIMIT ${ADMIN_DETAIL_EVENTS}`,
      [serviceId],
    ),
    sqlRows<ServiceOrderSummary>(
      deps,
      `SELECT invoice_id, kind, status, stage, amount, failure_reason, created_at
         FROM service_orders WHERE service_id = $1 ORDER BY id DESC LIMIT ${ADMIN_DETAIL_ORDERS}`,
      [serviceId],
    ),
  ]);
  return { view, events, orders };
}
