import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import type { ServiceEventSummary, ServiceOrderSummary } from '../../domain/services/admin-service-detail.js';
import type { ServiceView } from '../../domain/services/service-view.js';
import { dateTimeString, moneyString } from '../schemas.js';
import { serviceDetailResource, serviceDetailSchema, serviceSummaryResource, serviceSummarySchema } from './services.js';

export const adminServiceSummarySchema = serviceSummarySchema
  .extend({
    user_id: z.number().int(),
    supplier_id: z.number().int().nullable(),
    supplier_code: z.string().nullable(),
    upstream_host_id: z.number().int().openapi({ description: '0：没有上游绑定' }),
    provisioning_stage: z.string(),
  })
  .openapi('AdminServiceSummary');

export function adminServiceSummaryResource(s: ServiceView) {
  return {
    ...serviceSummaryResource(s),
    user_id: s.user_id,
    supplier_id: s.supplier_id,
    supplier_code: s.supplier_code,
    upstream_host_id: s.hostId,
    provisioning_stage: s.provisioning_stage,
  };
}

const eventSchema = z.object({
  id: z.number().int(),
  kind: z.string(),
  stage: z.string(),
  status: z.string(),
  message: z.string(),
  workflow_id: z.string().nullable(),
  operator_type: z.string(),
  operator_id: z.number().int().nullable(),
  created_at: dateTimeString.nullable(),
});

const orderSchema = z.object({
  invoice_id: z.number().int(),
  kind: z.string(),
  status: z.string(),
  stage: z.string(),
  amount: moneyString,
  failure_reason: z.string().nullable(),
  created_at: dateTimeString.nullable(),
});

export const adminServiceDetailSchema = serviceDetailSchema
  .extend({
    user_id: z.number().int(),
    invoice_id: z.number().int().openapi({ description: '新购账单' }),
    supplier: z.object({ id: z.number().int(), code: z.string(), name: z.string() }).nullable(),
    binding: z
      .object({
        provider_key: z.string(),
        upstream_product_id: z.string(),
        upstream_order_id: z.number().int().nullable(),
        upstream_invoice_id: z.number().int().nullable(),
        upstream_host_id: z.number().int().nullable(),
        bound_at: dateTimeString.nullable(),
      })
      .nullable()
      .openapi({ description: '服务的上游绑定；null：没有绑定' }),
    terminated_at: dateTimeString.nullable(),
    cancelled_at: dateTimeString.nullable(),
    upstream_synced_at: dateTimeString.nullable(),
    events: z.array(eventSchema).openapi({ description: '最近 20 条服务记录（开通、控制台操作、查看密码、续费、流量包）' }),
    orders: z.array(orderSchema).openapi({ description: '最近 10 笔续费与流量包订单（详情见 /api/v2/admin/service-orders/{invoice}）' }),
  })
  .openapi('AdminServiceDetail');

const asId = (v: string | null) => (v === null ? null : Number(v));

export function adminServiceDetailResource(s: ServiceView, events: ServiceEventSummary[], orders: ServiceOrderSummary[]) {
  return {
    ...serviceDetailResource(s),
    user_id: s.user_id,
    invoice_id: s.invoice_id,
    supplier: s.supplier_id !== null ? { id: s.supplier_id, code: s.supplier_code ?? '', name: s.supplier_name ?? '' } : null,
    binding: s.has_binding
      ? {
          provider_key: s.binding_provider_key ?? '',
          upstream_product_id: s.upstream_product_id ?? '',
          upstream_order_id: asId(s.upstream_order_id),
          upstream_invoice_id: asId(s.upstream_invoice_id),
          upstream_host_id: asId(s.upstream_host_id),
          bound_at: formatDateTime(s.bound_at),
        }
      : null,
    terminated_at: formatDateTime(s.terminated_at),
    cancelled_at: formatDateTime(s.cancelled_at),
    upstream_synced_at: formatDateTime(s.upstream_synced_at),
    events: events.map((e) => ({ ...e, id: Number(e.id), created_at: formatDateTime(e.created_at) })),
    orders: orders.map((o) => ({ ...o, amount: formatMoney(o.amount), created_at: formatDateTime(o.created_at) })),
  };
}
