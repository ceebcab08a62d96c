import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { decideUpdate, type ProvisionState, provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import type { UpstreamDecision } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';

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
  workflow: { id: string; status: string | null; stage: ProvisionState['stage'] | null; runs: number | null };
};

/** One provisioning: the service, its upstream binding, its step history and the live workflow state. */
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
  const workflow: ProvisioningDetail['workflow'] = { id: workflowId, status: null, stage: null, runs: null };
  const client = await deps.temporal?.client().catch(() => null);
  if (client) {
    const handle = client.workflow.getHandle(workflowId);
    try {
      const described = await handle.describe();
      workflow.status = described.status.name;
      if (described.status.name === 'RUNNING') {
        const state = await handle.query<ProvisionState>('provision.state');
        workflow.stage = state.stage;
        workflow.runs = state.runs;
      }
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) deps.logger.warn({ err, workflowId }, 'provisioning workflow not readable');
    }
  }
  return { row, steps, workflow };
}

/**
 * An admin's decision on a provisioning waiting for one: `retry` (the same downstream reference,
 * so nothing is bought twice) or `cancel` (refund to balance). Delivered as a workflow update,
 * which the workflow refuses unless it is waiting (40931).
 */
export async function decideProvisioning(deps: DomainDeps, serviceId: number, decision: UpstreamDecision): Promise<ProvisionState> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps');
  const service = await deps.db.models.Service.findByPk(serviceId, { attributes: ['id', 'status'] });
  if (!service) throw notFound('服务不存在');
  const client = await deps.temporal.client().catch(() => {
    throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '工作流服务暂时不可用，请稍后再试');
  });
  try {
    return await client.workflow.getHandle(provisionWorkflowId(serviceId)).executeUpdate(decideUpdate, { args: [decision] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      throw new AppError(ErrorCode.PROVISIONING_NOT_AWAITING, '该开通当前不在等待管理员处理的状态，不能重试或取消', { status: service.status });
    }
    throw err;
  }
}
