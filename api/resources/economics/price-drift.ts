import { z } from '@hono/zod-openapi';
import { BILLING_PERIODS, billingPeriodLabel, isBillingPeriod } from '../../../domain/catalogue/billing-periods.js';
import { FINDING_KINDS, FINDING_STATES, type PriceFinding } from '../../../domain/economics/findings.js';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { dateTimeString, moneyString } from '../../schemas.js';

const STATE_LABELS = { open: '待处理', acknowledged: '已确认', resolved: '已解决' } as const;

export const priceFindingSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(FINDING_KINDS).openapi({ description: 'price：商品价格点；renewal：现有服务的续费（只标记，不拒绝）' }),
    product_id: z.number().int(),
    product_name: z.string(),
    binding_id: z.number().int().nullable().openapi({ description: '发现该记录的上游绑定：商品的其他上游绑定编号；null 为商品的第一个（主）绑定' }),
    supplier_id: z.number().int().nullable().openapi({ description: '该绑定的供应商；旧版本写入的记录可能为 null' }),
    supplier_name: z.string().nullable(),
    service_id: z.number().int().nullable(),
    billing_period: z.enum(BILLING_PERIODS),
    billing_period_label: z.string(),
    option_key: z.string().openapi({
      description: 'base（默认配置）、<配置项字段>:<子选项编号>，或 service:<服务编号>；其他上游绑定的价格点后加 @<绑定编号>（如 base@3），与第一个绑定的同一价格点互不冲突',
    }),
    option_label: z.string(),
    old_upstream_price: moneyString.nullable().openapi({ description: '变化前的上游价格；首次观察时为 null' }),
    new_upstream_price: moneyString,
    our_price: moneyString,
    margin_percent: z.string().nullable().openapi({ description: '毛利率 %（两位小数）=（售价 − 上游成本）÷ 售价 × 100；售价为 0 时为 null' }),
    margin_floor_percent: z.string(),
    below_cost: z.boolean(),
    held: z.boolean().openapi({ description: '商品当前因这条记录暂停销售：低于成本、且商品没有其他上游绑定（供应商启用中）在同一价格点不亏本' }),
    state: z.enum(FINDING_STATES),
    state_label: z.string(),
    acknowledged_by: z.number().int().nullable(),
    acknowledged_at: dateTimeString.nullable(),
    resolved_at: dateTimeString.nullable(),
    created_at: dateTimeString,
  })
  .openapi('PriceDriftFinding');

export function priceFindingResource(row: PriceFinding): z.infer<typeof priceFindingSchema> {
  const period = isBillingPeriod(row.billing_period) ? row.billing_period : 'monthly';
  return {
    id: Number(row.id),
    kind: row.kind,
    product_id: row.product_id,
    product_name: row.product_name,
    binding_id: row.binding_id,
    supplier_id: row.supplier_id,
    supplier_name: row.supplier_name,
    service_id: row.service_id,
    billing_period: period,
    billing_period_label: billingPeriodLabel(period),
    option_key: row.option_key,
    option_label: row.option_label,
    old_upstream_price: row.old_upstream_price === null ? null : formatMoney(row.old_upstream_price),
    new_upstream_price: formatMoney(row.new_upstream_price),
    our_price: formatMoney(row.our_price),
    margin_percent: row.margin_percent === null ? null : formatMoney(row.margin_percent),
    margin_floor_percent: formatMoney(row.margin_floor_percent),
    below_cost: row.below_cost,
    held: row.held,
    state: row.state,
    state_label: STATE_LABELS[row.state],
    acknowledged_by: row.acknowledged_by,
    acknowledged_at: formatDateTime(row.acknowledged_at),
    resolved_at: formatDateTime(row.resolved_at),
    created_at: formatDateTime(row.created_at) ?? '',
  };
}
