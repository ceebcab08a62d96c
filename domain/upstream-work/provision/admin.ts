import { sqlOne, sqlRows } from '../../../db/sql.js';
import { notFound } from '../../../lib/errors.js';
import { readLiveWorkflow } from '../../../lib/temporal.js';
import { type ProvisionState, provisionWorkflowId, stateQuery } from '../../../workflows/provisioning/contract.js';
import type { DomainDeps } from '../../deps.js';
import { WORK_HOMES } from '../kinds.js';
import { listWork } from '../lists.js';

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

const LIST_SELECT = `
  SELECT w.id AS service_id, w.user_id, w.product_name, w.product_type, w.status, w.provisioning_stage, w.failure_code, w.failure_reason,
         w.supplier_id, sp.code AS supplier_code, b.upstream_host_id, w.stage_changed_at, w.created_at
    FROM services w
    LEFT JOIN suppliers sp ON sp.id = w.supplier_id
    LEFT JOIN service_upstream_bindings b ON b.service_id = w.id`;

/** Provisionings for ops: newest stage change first; filters by status, stage, supplier, user, and "stuck". */
export async function listProvisionings(deps: DomainDeps, query: ProvisioningListQuery): Promise<{ rows: ProvisioningListRow[]; total: number }> {
  return listWork<ProvisioningListRow>(deps, WORK_HOMES.service, LIST_SELECT, {
    page: query.page,
    page_size: query.page_size,
    equal: { status: query.status, provisioning_stage: query.stage, supplier_id: query.supplier_id, user_id: query.user_id },
    stuck_minutes: query.stuck_minutes,
  });
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
  /** The suppliers this provisioning failed over from and what each was left holding (issue #38), oldest first. */
  attempts: ProvisioningAttempt[];
};

export type ProvisioningAttempt = {
  supplier_id: number;
  supplier_code: string | null;
  upstream_product_id: string;
  upstream_order_id: string | null;
  upstream_invoice_id: string | null;
  upstream_host_id: string | null;
  code: string;
  reason: string;
  created_at: Date;
};

/** One provisioning: the service, its upstream binding, its step history and the live workflow state (or the read model's, see `live`). */
export async function getProvisioning(deps: DomainDeps, serviceId: number): Promise<ProvisioningDetail> {
  const row = await sqlOne<ProvisioningDetail['row']>(
    deps,
    `SELECT s.id AS service_id, s.user_id, s.product_name, s.product_type, s.status, s.provisioning_stage, s.failure_code, s.failure_reason,
            s.supplier_id, sp.code AS supplier_code, b.upstream_host_id, s.stage_changed_at, s.created_at,
            s.invoice_id, i.invoice_no, b.upstream_invoice_id, b.upstream_order_id, (s.downstream_token IS NOT NULL) AS downstream_token_set
       FROM services s
       JOIN invoices i ON i.id = s.invoice_id
       LEFT JOIN suppliers sp ON sp.id = s.supplier_id
       LEFT JOIN service_upstream_bindings b ON b.service_id = s.id
      WHERE s.id = $1`,
    [serviceId],
  );
  if (!row) throw notFound('服务不存在');
  const steps = await sqlRows<ProvisioningStep>(
    deps,
    `SELECT id, stage, status, message, created_at, operator_type FROM service_events
      WHERE service_id = $1 AND kind = 'provision' ORDER BY id DESC LIMIT 50`,
    [serviceId],
  );
  const attempts = await sqlRows<ProvisioningAttempt>(
    deps,
    `SELECT t.supplier_id, sp.code AS supplier_code, t.upstream_product_id, t.upstream_order_id::text AS upstream_order_id,
            t.upstream_invoice_id::text AS upstream_invoice_id, t.upstream_host_id::text AS upstream_host_id, t.code, t.reason, t.created_at
       FROM service_upstream_attempts t LEFT JOIN suppliers sp ON sp.id = t.supplier_id
      WHERE t.service_id = $1 ORDER BY t.id`,
    [serviceId],
  );
  const workflowId = provisionWorkflowId(serviceId);
  const live = await readLiveWorkflow<ProvisionState>(deps.temporal, workflowId, (handle) => handle.query(stateQuery), deps.logger);
  const workflow: ProvisioningDetail['workflow'] = live.live
    ? { id: workflowId, status: live.status, stage: live.state?.stage ?? null, runs: live.state?.runs ?? null, live: true }
    : { id: workflowId, status: live.status, stage: row.provisioning_stage || null, runs: null, live: false };
  return { row, steps, workflow, attempts };
}
