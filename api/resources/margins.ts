import { z } from '@hono/zod-openapi';
import type { CostRecord, MarginFigures, ReportRow, ServiceMargin } from '../../domain/economics/margins.js';
import { UPSTREAM_COST_KINDS } from '../../domain/economics/upstream-costs.js';
import { formatDateTime } from '../../lib/time.js';
import { dateTimeString, moneyString } from '../schemas.js';

const figuresShape = {
  revenue: moneyString.openapi({ description: '收入：已支付的新购（分摊）、续费、流量包与升降级账单金额' }),
  refunds: moneyString.openapi({ description: '这些账单的成功退款金额' }),
  upstream_cost: moneyString.nullable().openapi({ description: '上游成本；成本未知时为 null（从不记为 0）' }),
  margin: moneyString.nullable().openapi({ description: '收入 − 退款 − 上游成本；成本未知时为 null' }),
  margin_percent: z.string().nullable().openapi({ example: '23.50', description: '毛利 ÷（收入 − 退款）× 100，两位小数；收入 − 退款为 0 或成本未知时为 null' }),
  cost_known: z.boolean().openapi({ description: 'false：有上游支付没有已知成本（记录成本之前购买，或上游未答复金额）' }),
  currency: z.literal('CNY'),
};

export const marginFiguresSchema = z.object(figuresShape).openapi('MarginFigures');

function figures(f: MarginFigures): MarginFigures {
  return { revenue: f.revenue, refunds: f.refunds, upstream_cost: f.upstream_cost, margin: f.margin, margin_percent: f.margin_percent, cost_known: f.cost_known, currency: 'CNY' };
}

const serviceShape = {
  service_id: z.number().int(),
  user_id: z.number().int(),
  product_id: z.number().int(),
  product_name: z.string(),
  supplier_id: z.number().int().nullable(),
  status: z.string(),
  created_at: dateTimeString.nullable(),
  ...figuresShape,
};

export const serviceMarginSchema = z.object(serviceShape).openapi('ServiceMargin');

export function serviceMarginResource(m: ServiceMargin) {
  return {
    service_id: m.service_id,
    user_id: m.user_id,
    product_id: m.product_id,
    product_name: m.product_name,
    supplier_id: m.supplier_id,
    status: m.status,
    created_at: formatDateTime(m.created_at),
    ...figures(m),
  };
}

export const upstreamCostSchema = z
  .object({
    id: z.number().int(),
    invoice_id: z.number().int().openapi({ description: '我方账单 id' }),
    kind: z.enum(UPSTREAM_COST_KINDS),
    supplier_id: z.number().int(),
    upstream_invoice_id: z.number().int(),
    amount: moneyString.nullable().openapi({ description: '上游账单金额；上游未答复金额时为 null' }),
    via: z.enum(['paid', 'reconciled']).openapi({ description: 'paid：支付答复；reconciled：核对上游后确认已支付' }),
    recorded_at: dateTimeString.nullable(),
  })
  .openapi('UpstreamCost');

export const serviceMarginDetailSchema = z.object({ ...serviceShape, costs: z.array(upstreamCostSchema) }).openapi('ServiceMarginDetail');

export function serviceMarginDetailResource(m: ServiceMargin & { costs: CostRecord[] }) {
  return {
    ...serviceMarginResource(m),
    costs: m.costs.map((c) => ({
      id: c.id,
      invoice_id: c.invoice_id,
      kind: c.kind as (typeof UPSTREAM_COST_KINDS)[number],
      supplier_id: c.supplier_id,
      upstream_invoice_id: c.upstream_invoice_id,
      amount: c.amount,
      via: c.via as 'paid' | 'reconciled',
      recorded_at: formatDateTime(c.recorded_at),
    })),
  };
}

export const marginReportRowSchema = z
  .object({
    period: z.string().openapi({ description: 'YYYY-MM-DD（按日）或 YYYY-MM（按月），Asia/Shanghai' }),
    group_id: z.number().int().nullable().openapi({ description: '商品或供应商 id；没有供应商的本地商品为 null' }),
    group_name: z.string(),
    ...figuresShape,
  })
  .openapi('MarginReportRow');

export function marginReportRowResource(r: ReportRow) {
  return { period: r.period, group_id: r.group_id, group_name: r.group_name, ...figures(r) };
}
