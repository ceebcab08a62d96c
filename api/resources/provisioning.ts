import { z } from '@hono/zod-openapi';
import type { AppConfig } from '../../lib/config.js';
import { temporalWorkflowUrl } from '../../lib/temporal-ui.js';
import { formatDateTime } from '../../lib/time.js';
import type { ProvisioningDetail, ProvisioningListRow } from '../../domain/upstream-work/provision/admin.js';
import { provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { dateTimeString } from '../schemas.js';

export const provisioningItemSchema = z
  .object({
    service_id: z.number().int(),
    user_id: z.number().int(),
    product_name: z.string(),
    product_type: z.string(),
    status: z.string().openapi({ description: 'pending 待开通 / provisioning 开通中 / active 已开通 / failed 失败待处理 / cancelled 已取消 …' }),
    stage: z.string().openapi({ description: '当前步骤（BusinessStage）：prepare、login、cart、checkout、upstream_pay、host_lookup、bind、activate、done、awaiting_admin、cancelling、cancelled' }),
    failure_code: z.string().nullable(),
    failure_reason: z.string().nullable(),
    supplier_id: z.number().int().nullable(),
    supplier_code: z.string().nullable(),
    upstream_host_id: z.number().int(),
    stage_changed_at: dateTimeString.nullable(),
    waiting_minutes: z.number().int().openapi({ description: '当前步骤已停留的分钟数' }),
    workflow_id: z.string(),
    temporal_ui_url: z.string(),
  })
  .openapi('ProvisioningItem');

export function provisioningItem(row: ProvisioningListRow, config: AppConfig, now = Date.now()): z.infer<typeof provisioningItemSchema> {
  const since = (row.stage_changed_at ?? row.created_at).getTime();
  const workflowId = provisionWorkflowId(row.service_id);
  return {
    service_id: row.service_id,
    user_id: row.user_id,
    product_name: row.product_name,
    product_type: row.product_type,
    status: row.status,
    stage: row.provisioning_stage || 'queued',
    failure_code: row.failure_code,
    failure_reason: row.failure_reason,
    supplier_id: row.supplier_id,
    supplier_code: row.supplier_code,
    upstream_host_id: row.upstream_host_id === null ? 0 : Number(row.upstream_host_id),
    stage_changed_at: formatDateTime(row.stage_changed_at),
    waiting_minutes: Math.max(0, Math.floor((now - since) / 60_000)),
    workflow_id: workflowId,
    temporal_ui_url: temporalWorkflowUrl(config, workflowId),
  };
}

export const provisioningDetailSchema = provisioningItemSchema
  .extend({
    invoice_id: z.number().int(),
    invoice_no: z.string(),
    upstream_invoice_id: z.number().int().nullable(),
    upstream_order_id: z.number().int().nullable(),
    downstream_reference_created: z.boolean().openapi({ description: '下游引用（32 位令牌）已在首次上游调用前生成并保存' }),
    workflow_status: z.string().nullable().openapi({ description: 'Temporal 中的工作流状态（RUNNING、COMPLETED …）；未能查询时为 null' }),
    workflow_stage: z.string().nullable().openapi({ description: '工作流自己报告的阶段；workflow_live 为 false 时取自数据库' }),
    runs: z.number().int().nullable().openapi({ description: '购买步骤的执行轮数（管理员每重试一次加一）；workflow_live 为 false 时为 null' }),
    workflow_live: z.boolean().openapi({ description: 'true：以上工作流字段来自 Temporal 的实时应答；false：Temporal 或 worker 未在约 2 秒内应答，实时状态不可用，已回退为数据库读模型' }),
    steps: z.array(
      z.object({ id: z.number().int(), stage: z.string(), status: z.string(), message: z.string(), operator_type: z.string(), created_at: dateTimeString.nullable() }),
    ),
    upstream_attempts: z
      .array(
        z.object({
          supplier_id: z.number().int(),
          supplier_code: z.string().nullable(),
          upstream_product_id: z.string(),
          upstream_order_id: z.number().int().nullable(),
          upstream_invoice_id: z.number().int().nullable().openapi({ description: '在该供应商开出、从未支付的账单（无则为 null）' }),
          upstream_host_id: z.number().int().nullable(),
          code: z.string().openapi({ description: '切换原因代码：out_of_stock、product_gone、upstream_funds_timeout 或该供应商熔断时的失败代码' }),
          reason: z.string(),
          created_at: dateTimeString.nullable(),
        }),
      )
      .openapi({ description: '本次开通切换供应商前所在的供应商及其遗留（订单、未付账单、主机），按时间先后；未切换过为空数组' }),
  })
  .openapi('ProvisioningDetail');

export function provisioningDetail(detail: ProvisioningDetail, config: AppConfig): z.infer<typeof provisioningDetailSchema> {
  const id = (v: string | null) => (v === null ? null : Number(v));
  return {
    ...provisioningItem(detail.row, config),
    invoice_id: detail.row.invoice_id,
    invoice_no: detail.row.invoice_no,
    upstream_invoice_id: id(detail.row.upstream_invoice_id),
    upstream_order_id: id(detail.row.upstream_order_id),
    downstream_reference_created: detail.row.downstream_token_set,
    workflow_status: detail.workflow.status,
    workflow_stage: detail.workflow.stage,
    runs: detail.workflow.runs,
    workflow_live: detail.workflow.live,
    steps: detail.steps.map((s) => ({
      id: Number(s.id),
      stage: s.stage,
      status: s.status,
      message: s.message,
      operator_type: s.operator_type,
      created_at: formatDateTime(s.created_at),
    })),
    upstream_attempts: detail.attempts.map((t) => ({
      supplier_id: t.supplier_id,
      supplier_code: t.supplier_code,
      upstream_product_id: t.upstream_product_id,
      upstream_order_id: id(t.upstream_order_id),
      upstream_invoice_id: id(t.upstream_invoice_id),
      upstream_host_id: id(t.upstream_host_id),
      code: t.code,
      reason: t.reason,
      created_at: formatDateTime(t.created_at),
    })),
  };
}
