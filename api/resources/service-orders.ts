import { z } from '@hono/zod-openapi';
import { SERVICE_ORDER_KINDS, SERVICE_ORDER_STATUSES } from '../../db/models/service-order.js';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import type { ServiceOrderDetail, ServiceOrderListRow } from '../../domain/upstream-work/service-order/admin-service-orders.js';
import { SERVICE_ORDER_KIND_LABELS } from '../../domain/upstream-work/service-order/order-record.js';
import { dateTimeString, moneyString } from '../schemas.js';

export const SERVICE_ORDER_STATUS_LABELS: Record<(typeof SERVICE_ORDER_STATUSES)[number], string> = {
  pending: '待处理',
  processing: '处理中',
  awaiting_admin: '等待管理员处理',
  succeeded: '已完成',
  cancelled: '已取消',
};

const idOrNull = (v: string | null) => (v === null ? null : Number(v));

const summaryShape = {
  invoice_id: z.number().int(),
  invoice_no: z.string(),
  kind: z.enum(SERVICE_ORDER_KINDS),
  kind_label: z.string(),
  service_id: z.number().int(),
  user_id: z.number().int(),
  product_name: z.string(),
  status: z.enum(SERVICE_ORDER_STATUSES),
  status_label: z.string(),
  stage: z.string().openapi({ description: '工作流当前阶段（同 Temporal UI 的 BusinessStage）' }),
  billing_period: z.string().nullable(),
  package_name: z.string(),
  amount: moneyString,
  supplier_code: z.string().nullable(),
  failure_reason: z.string().nullable(),
  stage_changed_at: dateTimeString.nullable(),
  created_at: dateTimeString.nullable(),
};

export const serviceOrderSummarySchema = z.object(summaryShape).openapi('ServiceOrderSummary');

export function serviceOrderSummaryResource(r: ServiceOrderListRow) {
  return {
    invoice_id: r.invoice_id,
    invoice_no: r.invoice_no,
    kind: r.kind,
    kind_label: SERVICE_ORDER_KIND_LABELS[r.kind],
    service_id: r.service_id,
    user_id: r.user_id,
    product_name: r.product_name,
    status: r.status,
    status_label: SERVICE_ORDER_STATUS_LABELS[r.status],
    stage: r.stage,
    billing_period: r.billing_period,
    package_name: r.package_name,
    amount: formatMoney(r.amount),
    supplier_code: r.supplier_code,
    failure_reason: r.failure_reason,
    stage_changed_at: formatDateTime(r.stage_changed_at),
    created_at: formatDateTime(r.created_at),
  };
}

const stepSchema = z.object({
  id: z.number().int(),
  stage: z.string(),
  status: z.string(),
  message: z.string(),
  operator_type: z.string(),
  created_at: dateTimeString.nullable(),
});

export const serviceOrderDetailSchema = z
  .object({
    ...summaryShape,
    months: z.number().int().nullable(),
    package_id: z.number().int().nullable(),
    supplier_id: z.number().int().nullable(),
    upstream_host_id: z.number().int().nullable(),
    upstream_invoice_id: z.number().int().nullable().openapi({ description: '上游账单编号（支付前记录）' }),
    upstream_amount: moneyString.nullable(),
    upstream_paid_at: dateTimeString.nullable(),
    runs: z.number().int(),
    failure_code: z.string().nullable(),
    due_before: dateTimeString.nullable(),
    due_after: dateTimeString.nullable(),
    refund_id: z.number().int().nullable(),
    completed_at: dateTimeString.nullable(),
    cancelled_at: dateTimeString.nullable(),
    steps: z.array(stepSchema),
    workflow: z.object({
      id: z.string(),
      status: z.string().nullable().openapi({ description: 'Temporal 中的工作流状态；未能查询时为 null' }),
      stage: z.string().nullable().openapi({ description: '工作流自己报告的阶段；live 为 false 时取自数据库' }),
      runs: z.number().int().nullable().openapi({ description: 'live 为 false 时取自数据库' }),
      temporal_ui_url: z.string(),
      live: z.boolean().openapi({ description: 'true：工作流字段来自 Temporal 的实时应答；false：Temporal 或 worker 未在约 2 秒内应答，实时状态不可用，已回退为数据库读模型' }),
    }),
  })
  .openapi('ServiceOrderDetail');

export function serviceOrderDetailResource(d: ServiceOrderDetail) {
  const r = d.row;
  return {
    ...serviceOrderSummaryResource(r),
    months: r.months,
    package_id: r.package_id,
    supplier_id: r.supplier_id,
    upstream_host_id: idOrNull(r.upstream_host_id),
    upstream_invoice_id: idOrNull(r.upstream_invoice_id),
    upstream_amount: r.upstream_amount === null ? null : formatMoney(r.upstream_amount),
    upstream_paid_at: formatDateTime(r.upstream_paid_at),
    runs: r.runs,
    failure_code: r.failure_code,
    due_before: formatDateTime(r.due_before),
    due_after: formatDateTime(r.due_after),
    refund_id: r.refund_id,
    completed_at: formatDateTime(r.completed_at),
    cancelled_at: formatDateTime(r.cancelled_at),
    steps: d.steps.map((s) => ({ ...s, id: Number(s.id), created_at: formatDateTime(s.created_at) })),
    workflow: d.workflow,
  };
}
