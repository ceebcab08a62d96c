import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ServiceOrderKind, ServiceOrderStatus } from '../../../db/models/service-upstream-order.js';
import { AppError, ErrorCode, notFound } from '../../../lib/errors.js';
import { isTemporalUnavailable, readLiveWorkflow, REQUEST_DEADLINE_MS, TemporalUnavailableError } from '../../../lib/temporal.js';
import { temporalWorkflowUrl } from '../../../lib/temporal-ui.js';
import { decideServiceOrderUpdate, type ServiceOrderState, serviceOrderStateQuery } from '../../../workflows/service-order/contract.js';
import { STAGE_AFTER_DECISION, type UpstreamDecision } from '../../../workflows/upstream/contract.js';
import type { DomainDeps } from '../../deps.js';
import { findIntent, intentKeys, markIntentDone, recordIntent, shortError, TRY_NOW_GRACE_MS } from '../../outbox/intents.js';

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
    FROM service_upstream_orders o
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
    deps.db.read<{ total: string }>(`SELECT count(*) AS total FROM service_upstream_orders o ${filter}`, params),
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
  if (!row) throw notFound('服务订单（续费、流量包或配置变更）不存在');
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

export type ServiceOrderDecisionOutcome = {
  /** True: the workflow took the decision now. False: Temporal or the worker did not answer in time; the decision is recorded and delivered when they are back. */
  delivered: boolean;
  /** The workflow's stage after the decision, or the database's when not delivered. */
  stage: string;
};

/**
 * An admin's decision on an order waiting for one: `retry` (the recorded upstream bill is reused,
 * so nothing is bought twice) or `cancel` (the invoice refunded to the balance). The database
 * must say it waits (40945). Recorded in the outbox first (one decision per wait; a different
 * second one is 40945), then delivered as the workflow update `service-order.decide` with the
 * outbox key as update id within the request deadline; when Temporal or the worker does not
 * answer in time, `delivered: false` and the outbox relay delivers it later. The workflow
 * refusing it is 40945.
 */
export async function decideServiceOrder(deps: DomainDeps, invoiceId: number, decision: UpstreamDecision): Promise<ServiceOrderDecisionOutcome> {
  const order = await deps.db.models.ServiceUpstreamOrder.findOne({ where: { invoice_id: invoiceId }, attributes: ['id', 'status', 'stage', 'stage_changed_at', 'workflow_id'] });
  if (!order) throw notFound('服务订单（续费、流量包或配置变更）不存在');
  if (order.status !== 'awaiting_admin') throw new AppError(ErrorCode.SERVICE_ORDER_NOT_AWAITING, undefined, { status: order.status });
  const key = intentKeys.serviceOrderDecision(invoiceId, order.stage_changed_at);
  const payload = { invoice_id: invoiceId, workflow_id: order.workflow_id, decision };
  if (!(await recordIntent(deps, { kind: 'decide_service_order', key, payload, delayMs: TRY_NOW_GRACE_MS }))) {
    const earlier = await findIntent(deps, key);
    if ((earlier?.payload['decision'] as UpstreamDecision | undefined)?.action !== decision.action) {
      throw new AppError(ErrorCode.SERVICE_ORDER_NOT_AWAITING, '该订单已有管理员作出其他处理决定，请刷新后查看', { status: order.status });
    }
  }
  try {
    await deliverServiceOrderDecision(deps, order.workflow_id, decision, key, REQUEST_DEADLINE_MS);
    await markIntentDone(deps, key);
    return { delivered: true, stage: STAGE_AFTER_DECISION[decision.action] };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      await markIntentDone(deps, key, `refused: ${shortError(err)}`);
      throw new AppError(ErrorCode.SERVICE_ORDER_NOT_AWAITING, undefined, { status: order.status });
    }
    if (!isTemporalUnavailable(err)) throw err;
    deps.logger.warn({ err, invoiceId }, 'service order decision not delivered now; the outbox relay delivers it');
    return { delivered: false, stage: order.stage };
  }
}

/**
 * Delivers a recorded decision as the update `service-order.decide` with `updateId` (a repeated
 * update id gets the first one's outcome, so the API and the relay may both deliver it). Throws
 * WorkflowUpdateFailedError when the workflow refuses it.
 */
export async function deliverServiceOrderDecision(
  deps: DomainDeps,
  workflowId: string,
  decision: UpstreamDecision,
  updateId: string,
  deadlineMs: number,
): Promise<ServiceOrderState> {
  if (!deps.temporal) throw new TemporalUnavailableError('no Temporal client in these deps');
  return deps.temporal.withDeadline((client) => client.workflow.getHandle(workflowId).executeUpdate(decideServiceOrderUpdate, { args: [decision], updateId }), deadlineMs);
}
