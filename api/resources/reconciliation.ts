import { z } from '@hono/zod-openapi';
import { RECONCILIATION_FINDING_KINDS, RECONCILIATION_FINDING_STATES, RECONCILIATION_RUN_STATUSES } from '../../db/models/reconciliation.js';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import type { FindingSummary, FindingWithSupplier, RunWithSupplier } from '../../domain/economics/reconciliation/findings.js';
import { FINDING_KIND_LABELS, FINDING_STATE_LABELS, RUN_STATUS_LABELS } from '../../domain/economics/reconciliation/kinds.js';
import { dateTimeString, moneyString } from '../schemas.js';

const idOrNull = (v: string | number | null) => (v === null ? null : Number(v));

const seen = z.record(z.string(), z.unknown());

export const findingSchema = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    supplier_code: z.string(),
    supplier_name: z.string(),
    kind: z.enum(RECONCILIATION_FINDING_KINDS),
    kind_label: z.string(),
    subject_key: z.string().openapi({ description: '差异对象：host:<上游主机 ID> 或 bill:<上游账单 ID>；同一供应商、类型与对象只有一条记录' }),
    service_id: z.number().int().nullable(),
    upstream_host_id: z.number().int().nullable(),
    upstream_bill_id: z.number().int().nullable(),
    amount: moneyString.nullable().openapi({ description: '上游金额：未知主机为其周期价格，无本地订单的账单为其金额；其他类型为 null' }),
    ours: seen.openapi({ description: '本地所见（服务编号、状态、到期时间等）' }),
    theirs: seen.openapi({ description: '上游所见（主机状态、到期时间，或账单信息）；不含任何密码' }),
    state: z.enum(RECONCILIATION_FINDING_STATES),
    state_label: z.string(),
    first_seen_at: dateTimeString,
    last_seen_at: dateTimeString,
    times_seen: z.number().int(),
    acknowledged_at: dateTimeString.nullable(),
    acknowledged_by: z.number().int().nullable(),
    resolved_at: dateTimeString.nullable(),
    resolved_by_type: z.enum(['admin', 'system']).nullable().openapi({ description: 'system：后续对账不再发现而自动解决；admin：管理员标记' }),
    resolved_by_id: z.number().int().nullable(),
    note: z.string(),
  })
  .openapi('ReconciliationFinding');

export function findingResource(row: FindingWithSupplier) {
  return {
    id: Number(row.id),
    supplier_id: row.supplier_id,
    supplier_code: row.supplier_code,
    supplier_name: row.supplier_name,
    kind: row.kind,
    kind_label: FINDING_KIND_LABELS[row.kind],
    subject_key: row.subject_key,
    service_id: row.service_id,
    upstream_host_id: idOrNull(row.upstream_host_id),
    upstream_bill_id: idOrNull(row.upstream_bill_id),
    amount: row.amount === null ? null : formatMoney(row.amount),
    ours: row.ours,
    theirs: row.theirs,
    state: row.state,
    state_label: FINDING_STATE_LABELS[row.state],
    first_seen_at: formatDateTime(row.first_seen_at) ?? '',
    last_seen_at: formatDateTime(row.last_seen_at) ?? '',
    times_seen: row.times_seen,
    acknowledged_at: formatDateTime(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    resolved_at: formatDateTime(row.resolved_at),
    resolved_by_type: row.resolved_by_type,
    resolved_by_id: row.resolved_by_id,
    note: row.note,
  };
}

const stateCounts = Object.fromEntries(RECONCILIATION_FINDING_STATES.map((s) => [s, z.number().int()])) as Record<
  (typeof RECONCILIATION_FINDING_STATES)[number],
  z.ZodNumber
>;

export const findingSummarySchema = z
  .object({
    total: z.number().int(),
    by_state: z.object(stateCounts),
    by_kind: z.array(
      z.object({
        kind: z.enum(RECONCILIATION_FINDING_KINDS),
        kind_label: z.string(),
        total: z.number().int(),
        ...stateCounts,
        open_amount: moneyString.openapi({ description: '未解决（待处理与已确认）差异的上游金额合计' }),
      }),
    ),
  })
  .openapi('ReconciliationFindingSummary');

export function findingSummaryResource(summary: FindingSummary) {
  return {
    total: summary.total,
    by_state: summary.by_state,
    by_kind: summary.by_kind.map((k) => ({ ...k, kind_label: FINDING_KIND_LABELS[k.kind] })),
  };
}

export const runSchema = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    supplier_code: z.string(),
    supplier_name: z.string(),
    task_run_id: z.number().int().nullable(),
    status: z.enum(RECONCILIATION_RUN_STATUSES),
    status_label: z.string(),
    started_at: dateTimeString,
    finished_at: dateTimeString.nullable(),
    hosts_compared: z.boolean().openapi({ description: '主机列表完整读取并比对（翻页期间有变化时为 false：不检查主机缺失，也不自动解决主机类差异）' }),
    bills_compared: z.boolean().openapi({ description: '已比对上游账单；上游不提供账单列表或读取失败时为 false，原因见 note' }),
    note: z.string(),
    upstream_hosts: z.number().int(),
    upstream_bills: z.number().int(),
    local_services: z.number().int().openapi({ description: '本地绑定该供应商主机的有效（active）服务数' }),
    findings_seen: z.number().int(),
    findings_opened: z.number().int().openapi({ description: '本次新发现或重新出现的差异数' }),
    findings_resolved: z.number().int().openapi({ description: '本次不再出现而自动解决的差异数' }),
    error: z.string().nullable(),
  })
  .openapi('ReconciliationRun');

export function runResource(row: RunWithSupplier) {
  return {
    id: Number(row.id),
    supplier_id: row.supplier_id,
    supplier_code: row.supplier_code,
    supplier_name: row.supplier_name,
    task_run_id: idOrNull(row.task_run_id),
    status: row.status,
    status_label: RUN_STATUS_LABELS[row.status],
    started_at: formatDateTime(row.started_at) ?? '',
    finished_at: formatDateTime(row.finished_at),
    hosts_compared: row.hosts_compared,
    bills_compared: row.bills_compared,
    note: row.note,
    upstream_hosts: row.upstream_hosts,
    upstream_bills: row.upstream_bills,
    local_services: row.local_services,
    findings_seen: row.findings_seen,
    findings_opened: row.findings_opened,
    findings_resolved: row.findings_resolved,
    error: row.error,
  };
}
