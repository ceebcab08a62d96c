import { QueryTypes } from 'sequelize';
import { notFound } from '../../lib/errors.js';
import { readLiveWorkflow } from '../../lib/temporal.js';
import { type ProvisionState, provisionWorkflowId, stateQuery } from '../../workflows/provisioning/contract.js';
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
