import type { ServiceOrderKind, ServiceOrderStatus } from '../../../db/models/service-order.js';
import { notFound } from '../../../lib/errors.js';
import { readLiveWorkflow } from '../../../lib/temporal.js';
import { temporalWorkflowUrl } from '../../../lib/temporal-ui.js';
import { type ServiceOrderState, serviceOrderStateQuery } from '../../../workflows/service-order/contract.js';
import type { DomainDeps } from '../../deps.js';
import { WORK_HOMES } from '../kinds.js';
import { listWork } from '../lists.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';

export type ServiceOrderListQuery = {
  page: number;
  page_size: number;
  kind?: ServiceOrderKind | undefined;
  status?: ServiceOrderStatus | undefined;
  service_id?: number | undefined;
  user_id?: number | undefined;
  supplier_id?: number | undefined;
  /** The stage (e.g. `awaiting_upstream_funds`, `awaiting_admin`). */
  stage?: string | undefined;
  /** Only unfinished orders whose stage has not moved for this many minutes. */
  stuck_minutes?: number | undefined;
};

export type ServiceOrderListRow = {
  id: number;
  invoice_id: number;
  invoice_no: string;
  kind: ServiceOrderKind;
  service_id: number;
  user_id: number;
  product_name: string;
  status: ServiceOrderStatus;
  stage: string;
  billing_period: string | null;
  months: number | null;
  package_id: number | null;
  package_name: string;
  amount: string;
  supplier_id: number | null;
  supplier_code: string | null;
  upstream_host_id: string | null;
  upstream_invoice_id: string | null;
  upstream_amount: string | null;
  upstream_paid_at: Date | null;
  runs: number;
  failure_code: string | null;
  failure_reason: string | null;
  due_before: Date | null;
  due_after: Date | null;
  refund_id: number | null;
  workflow_id: string;
  stage_changed_at: Date;
  completed_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
};

const SELECT = `
  SELECT w.id, w.invoice_id, i.invoice_no, w.kind, w.service_id, w.user_id, s.product_name, w.status, w.stage, w.billing_period, w.months,
         w.package_id, w.package_name, w.amount, w.supplier_id, sp.code AS supplier_code, w.upstream_host_id::text AS upstream_host_id,
         w.upstream_invoice_id::text AS upstream_invoice_id, w.upstream_amount, w.upstream_paid_at, w.runs, w.failure_code, w.failure_reason,
         w.due_before, w.due_after, w.refund_id, w.workflow_id, w.stage_changed_at, w.completed_at, w.cancelled_at, w.created_at
    FROM service_orders w
    JOIN invoices i ON i.id = w.invoice_id
    JOIN services s ON s.id = w.service_id
    LEFT JOIN suppliers sp ON sp.id = w.supplier_id`;

/** Service orders (renewals, traffic packages, upgrades) for ops: newest stage change first; filters by kind, state, service, user, supplier, "stuck". */
export async function listServiceOrders(deps: DomainDeps, query: ServiceOrderListQuery): Promise<{ rows: ServiceOrderListRow[]; total: number }> {
  return listWork<ServiceOrderListRow>(deps, WORK_HOMES.service_order, SELECT, {
    page: query.page,
    page_size: query.page_size,
    equal: { kind: query.kind, status: query.status, service_id: query.service_id, user_id: query.user_id, supplier_id: query.supplier_id, stage: query.stage },
    stuck_minutes: query.stuck_minutes,
  });
}

export type ServiceOrderStep = { id: number; stage: string; status: string; message: string; operator_type: string; created_at: Date };

export type ServiceOrderDetail = {
  row: ServiceOrderListRow;
  steps: ServiceOrderStep[];
  /**
   * `live`: Temporal answered within the request deadline; otherwise the stage and runs are the
   * database's (the read model the workflow writes at every step) and the status is what
   * Temporal did answer, or null.
   */
  workflow: { id: string; status: string | null; stage: string | null; runs: number | null; temporal_ui_url: string; live: boolean };
};

/** One order by its invoice: the row, its step history (the service's events of its workflow) and the live workflow state (or the read model's, see `live`). */
export async function getServiceOrder(deps: DomainDeps, invoiceId: number): Promise<ServiceOrderDetail> {
  const row = await sqlOne<ServiceOrderListRow>(deps, `${SELECT} WHERE w.invoice_id = $1`, [invoiceId]);
  if (!row) throw notFound(WORK_HOMES.service_order.notFound);
  const steps = await sqlRows<ServiceOrderStep>(
    deps,
    `SELECT id, stage, status, message, operator_type, created_at FROM service_events WHERE service_id = $1 AND workflow_id = $2 ORDER BY id DESC LIMIT 50`,
    [row.service_id, row.workflow_id],
  );
  const live = await readLiveWorkflow<ServiceOrderState>(deps.temporal, row.workflow_id, (handle) => handle.query(serviceOrderStateQuery), deps.logger);
  const workflow: ServiceOrderDetail['workflow'] = {
    id: row.workflow_id,
    status: live.status,
    stage: live.live ? (live.state?.stage ?? null) : row.stage,
    runs: live.live ? (live.state?.runs ?? null) : row.runs,
    temporal_ui_url: temporalWorkflowUrl(deps.config, row.workflow_id),
    live: live.live,
  };
  return { row, steps, workflow };
}
