import type { ServiceOrderKind, ServiceOrderStatus } from '../../../db/models/service-order.js';
import { notFound } from '../../../lib/errors.js';
import { readLiveWorkflow } from '../../../lib/temporal.js';
import { temporalWorkflowUrl } from '../../../lib/temporal-ui.js';
import { type ServiceOrderState, serviceOrderStateQuery } from '../../../workflows/service-order/contract.js';
import type { DomainDeps } from '../../deps.js';
import { WORK_HOMES } from '../../upstream-work/kinds.js';

export type ServiceOrderListQuery = {
  page: number;
  page_size: number;
  kind?: ServiceOrderKind | undefined;
  status?: ServiceOrderStatus | undefined;
  service_id?: number | undefined;
  user_id?: number | undefined;
  supplier_id?: number | undefined;
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
  SELECT o.id, o.invoice_id, i.invoice_no, o.kind, o.service_id, o.user_id, s.product_name, o.status, o.stage, o.billing_period, o.months,
         o.package_id, o.package_name, o.amount, o.supplier_id, sp.code AS supplier_code, o.upstream_host_id::text AS upstream_host_id,
         o.upstream_invoice_id::text AS upstream_invoice_id, o.upstream_amount, o.upstream_paid_at, o.runs, o.failure_code, o.failure_reason,
         o.due_before, o.due_after, o.refund_id, o.workflow_id, o.stage_changed_at, o.completed_at, o.cancelled_at, o.created_at
    FROM service_orders o
    JOIN invoices i ON i.id = o.invoice_id
    JOIN services s ON s.id = o.service_id
    LEFT JOIN suppliers sp ON sp.id = o.supplier_id`;

/** Renewals and traffic-package purchases for ops: newest stage change first; filters by kind, state, service, user, supplier, "stuck". */
export async function listServiceOrders(deps: DomainDeps, query: ServiceOrderListQuery): Promise<{ rows: ServiceOrderListRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.kind) where.push(`o.kind = ${bind(query.kind)}`);
  if (query.status) where.push(`o.status = ${bind(query.status)}`);
  if (query.service_id) where.push(`o.service_id = ${bind(query.service_id)}`);
  if (query.user_id) where.push(`o.user_id = ${bind(query.user_id)}`);
  if (query.supplier_id) where.push(`o.supplier_id = ${bind(query.supplier_id)}`);
  if (query.stuck_minutes !== undefined) {
    where.push(`o.status IN ('pending', 'processing', 'awaiting_admin') AND o.stage_changed_at < now() - make_interval(mins => ${bind(query.stuck_minutes)})`);
  }
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const [rows, counted] = await Promise.all([
    deps.db.read<ServiceOrderListRow>(
      `${SELECT} ${filter} ORDER BY o.stage_changed_at DESC, o.id DESC LIMIT ${query.page_size} OFFSET ${(query.page - 1) * query.page_size}`,
      params,
    ),
    deps.db.read<{ total: string }>(`SELECT count(*) AS total FROM service_orders o ${filter}`, params),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
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
  const [row] = await deps.db.read<ServiceOrderListRow>(`${SELECT} WHERE o.invoice_id = $1`, [invoiceId]);
  if (!row) throw notFound(WORK_HOMES.service_order.notFound);
  const steps = await deps.db.read<ServiceOrderStep>(
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
