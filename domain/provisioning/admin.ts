import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { isTemporalUnavailable, readLiveWorkflow, REQUEST_DEADLINE_MS, TemporalUnavailableError } from '../../lib/temporal.js';
import { decideUpdate, type ProvisionState, provisionWorkflowId, stateQuery } from '../../workflows/provisioning/contract.js';
import { STAGE_AFTER_DECISION, type UpstreamDecision } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';
import { findIntent, intentKeys, markIntentDone, recordIntent, shortError, TRY_NOW_GRACE_MS } from '../outbox/intents.js';

export type ProvisioningListQuery = {
  page: number;
  page_size: number;
  status?: string | undefined;
  stage?: string | undefined;
  /** Only unfinished provisionings whose stage has not moved for this many minutes. */
  stuck_minutes?: number | undefined;
  supplier_id?: number | undefined;
  user_id?: number | undefined;
};

export type ProvisioningListRow = {
  service_id: number;
  user_id: number;
  product_name: string;
  product_type: string;
  status: string;
  provisioning_stage: string;
  failure_code: string | null;
  failure_reason: string | null;
  supplier_id: number | null;
  supplier_code: string | null;
  upstream_host_id: string | null;
  stage_changed_at: Date | null;
  created_at: Date;
};

const UNFINISHED = "('pending', 'provisioning', 'failed')";

/** Provisionings for ops: newest stage change first; filters by status, stage, supplier, user, and "stuck". */
export async function listProvisionings(deps: DomainDeps, query: ProvisioningListQuery): Promise<{ rows: ProvisioningListRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.status) where.push(`s.status = ${bind(query.status)}`);
  if (query.stage) where.push(`s.provisioning_stage = ${bind(query.stage)}`);
  if (query.supplier_id) where.push(`s.supplier_id = ${bind(query.supplier_id)}`);
  if (query.user_id) where.push(`s.user_id = ${bind(query.user_id)}`);
  if (query.stuck_minutes !== undefined) {
    where.push(`s.status IN ${UNFINISHED} AND COALESCE(s.stage_changed_at, s.created_at) < now() - make_interval(mins => ${bind(query.stuck_minutes)})`);
  }
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [rows, counted] = await Promise.all([
    deps.db.read<ProvisioningListRow>(
      `SELECT s.id AS service_id, s.user_id, s.product_name, s.product_type, s.status, s.provisioning_stage, s.failure_code, s.failure_reason,
              s.supplier_id, sp.code AS supplier_code, b.upstream_host_id, s.stage_changed_at, s.created_at
         FROM services s
         LEFT JOIN suppliers sp ON sp.id = s.supplier_id
         LEFT JOIN service_upstream_bindings b ON b.service_id = s.id
         ${filter}
        ORDER BY COALESCE(s.stage_changed_at, s.created_at) DESC, s.id DESC
        LIMIT ${query.page_size} OFFSET ${(query.page - 1) * query.page_size}`,
      params,
    ),
    deps.db.read<{ total: string }>(`SELECT count(*) AS total FROM services s ${filter}`, params),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
}

export type ProvisioningStep = { id: number; stage: string; status: string; message: string; created_at: Date; operator_type: string };

export type ProvisioningDetail = {
  row: ProvisioningListRow & { invoice_id: number; invoice_no: string; upstream_invoice_id: string | null; upstream_order_id: string | null; downstream_token_set: boolean };
  steps: ProvisioningStep[];
  /**
   * `live`: Temporal answered within the request deadline (status and, while running, the
   * workflow's own stage and runs). Otherwise the stage is the database's (the read model the
   * workflow writes at every step) and what Temporal would have said is null.
   */
  workflow: { id: string; status: string | null; stage: string | null; runs: number | null; live: boolean };
};

/** One provisioning: the service, its upstream binding, its step history and the live workflow state (or the read model's, see `live`). */
export async function getProvisioning(deps: DomainDeps, serviceId: number): Promise<ProvisioningDetail> {
  const [row] = await deps.db.sequelize.query<ProvisioningDetail['row']>(
    `SELECT s.id AS service_id, s.user_id, s.product_name, s.product_type, s.status, s.provisioning_stage, s.failure_code, s.failure_reason,
            s.supplier_id, sp.code AS supplier_code, b.upstream_host_id, s.stage_changed_at, s.created_at,
            s.invoice_id, i.invoice_no, b.upstream_invoice_id, b.upstream_order_id, (s.downstream_token IS NOT NULL) AS downstream_token_set
       FROM services s
       JOIN invoices i ON i.id = s.invoice_id
       LEFT JOIN suppliers sp ON sp.id = s.supplier_id
       LEFT JOIN service_upstream_bindings b ON b.service_id = s.id
      WHERE s.id = :id`,
    { replacements: { id: serviceId }, type: QueryTypes.SELECT },
  );
  if (!row) throw notFound('服务不存在');
  const steps = await deps.db.sequelize.query<ProvisioningStep>(
    `SELECT id, stage, status, message, created_at, operator_type FROM service_events
      WHERE service_id = :id AND kind = 'provision' ORDER BY id DESC LIMIT 50`,
    { replacements: { id: serviceId }, type: QueryTypes.SELECT },
  );
  const workflowId = provisionWorkflowId(serviceId);
  const live = await readLiveWorkflow<ProvisionState>(deps.temporal, workflowId, (handle) => handle.query(stateQuery), deps.logger);
  const workflow: ProvisioningDetail['workflow'] = live.live
    ? { id: workflowId, status: live.status, stage: live.state?.stage ?? null, runs: live.state?.runs ?? null, live: true }
    : { id: workflowId, status: live.status, stage: row.provisioning_stage || null, runs: null, live: false };
  return { row, steps, workflow };
}

export type DecisionOutcome = {
  /** True: the workflow took the decision now. False: Temporal or the worker did not answer in time; the decision is recorded and delivered when they are back. */
  delivered: boolean;
  /** The workflow's stage after the decision, or the database's when not delivered. */
  stage: string;
};

/**
 * An admin's decision on a provisioning waiting for one: `retry` (the same downstream reference,
 * so nothing is bought twice) or `cancel` (refund to balance). The database must say it waits
 * (40931 otherwise). The decision is recorded in the outbox first (one per wait: a second click
 * on the same wait is the same decision; a different one is refused with 40931), then delivered
 * as the workflow update `provision.decide` with the outbox key as update id, within the request
 * deadline; when Temporal or the worker does not answer in time the answer says `delivered:
 * false` and the outbox relay delivers it later. The workflow refusing it is 40931.
 */
export async function decideProvisioning(deps: DomainDeps, serviceId: number, decision: UpstreamDecision): Promise<DecisionOutcome> {
  const [service] = await deps.db.read<{ status: string; provisioning_stage: string; stage_changed_at: Date | null }>(
    'SELECT status, provisioning_stage, stage_changed_at FROM services WHERE id = $1',
    [serviceId],
  );
  if (!service) throw notFound('服务不存在');
  const notAwaiting = () => new AppError(ErrorCode.PROVISIONING_NOT_AWAITING, '该开通当前不在等待管理员处理的状态，不能重试或取消', { status: service.status });
  if (service.provisioning_stage !== 'awaiting_admin') throw notAwaiting();
  const key = intentKeys.provisioningDecision(serviceId, service.stage_changed_at);
  const recorded = await recordIntent(deps, { kind: 'decide_provisioning', key, payload: { service_id: serviceId, decision }, delayMs: TRY_NOW_GRACE_MS });
  if (!recorded) {
    const earlier = await findIntent(deps, key);
    const action = (earlier?.payload['decision'] as UpstreamDecision | undefined)?.action;
    if (action !== decision.action) {
      throw new AppError(ErrorCode.PROVISIONING_NOT_AWAITING, '该开通已有管理员作出其他处理决定，请刷新后查看', { status: service.status });
    }
  }
  try {
    await deliverProvisioningDecision(deps, serviceId, decision, key, REQUEST_DEADLINE_MS);
    await markIntentDone(deps, key);
    return { delivered: true, stage: STAGE_AFTER_DECISION[decision.action] };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      await markIntentDone(deps, key, `refused: ${shortError(err)}`);
      throw notAwaiting();
    }
    if (!isTemporalUnavailable(err)) throw err;
    deps.logger.warn({ err, serviceId }, 'provisioning decision not delivered now; the outbox relay delivers it');
    return { delivered: false, stage: service.provisioning_stage };
  }
}

/**
 * Delivers a recorded decision as the update `provision.decide` with `updateId` (Temporal
 * answers a repeated update id with the first one's outcome, so the API and the relay may both
 * deliver it). Throws WorkflowUpdateFailedError when the workflow refuses it.
 */
export async function deliverProvisioningDecision(deps: DomainDeps, serviceId: number, decision: UpstreamDecision, updateId: string, deadlineMs: number): Promise<ProvisionState> {
  if (!deps.temporal) throw new TemporalUnavailableError('no Temporal client in these deps');
  return deps.temporal.withDeadline(
    (client) => client.workflow.getHandle(provisionWorkflowId(serviceId)).executeUpdate(decideUpdate, { args: [decision], updateId }),
    deadlineMs,
  );
}
