import { z } from '@hono/zod-openapi';
import type { UpgradeQuote } from '../../domain/services/upgrades/create-upgrade-invoice.js';
import type { UpgradeOptions } from '../../domain/services/upgrades/upgrade-options.js';
import { moneyString } from '../schemas.js';

const prorationSchema = z
  .object({
    period_start: z.string().openapi({ description: '本周期开始日期（Asia/Shanghai，YYYY-MM-DD）' }),
    due_date: z.string().openapi({ description: '到期日期（不因升降级改变）' }),
    today: z.string(),
    days_in_period: z.number().int(),
    days_left: z.number().int().openapi({ description: '剩余天数：到期日 − 今天（今天算已使用）' }),
  })
  .openapi('UpgradePeriod');

const choiceSchema = z.object({
  field: z.string().openapi({ description: '所属配置项字段' }),
  value: z.number().int().openapi({ description: '子选项编号或数量' }),
  label: z.string(),
  current: z.boolean(),
  new_price: moneyString.nullable().openapi({ description: '变更后每周期价格（成为新的锁定价格）；当前值或不可选时为 null' }),
  price_difference: moneyString.nullable().openapi({ description: '每周期价格差（新价格 − 锁定价格）' }),
  prorated_amount: moneyString.nullable().openapi({ description: '按剩余天数折算的差额：正数为需支付，负数为上游确认后退还至余额' }),
});

export const upgradeOptionsSchema = z
  .object({
    service_id: z.number().int(),
    billing_period: z.string(),
    locked_price: moneyString.openapi({ description: '服务当前锁定的每周期价格' }),
    period: prorationSchema,
    options: z.array(
      z.object({
        field: z.string(),
        name: z.string(),
        kind: z.enum(['choice', 'quantity']),
        unit: z.string(),
        min: z.number().int().nullable(),
        max: z.number().int().nullable(),
        current_value: z.number().int().nullable(),
        current_label: z.string(),
      }),
    ),
    choices: z.array(choiceSchema).openapi({ description: '每个配置项的各个取值（按 field 归属；数量型配置项范围过大时不逐一列出，请用报价接口）' }),
    pending_invoice_no: z.string().nullable().openapi({ description: '未支付的配置变更账单号（需先支付或取消才能再次变更）' }),
  })
  .openapi('UpgradeOptions');

export function upgradeOptionsResource(o: UpgradeOptions) {
  return {
    service_id: o.service_id,
    billing_period: o.billing_period,
    locked_price: o.locked_price,
    period: { ...o.period },
    options: o.options.map((opt) => ({
      field: opt.field,
      name: opt.name,
      kind: opt.kind,
      unit: opt.unit,
      min: opt.min,
      max: opt.max,
      current_value: opt.current.value,
      current_label: opt.current.label,
    })),
    choices: o.options.flatMap((opt) => opt.choices.map((c) => ({ field: opt.field, value: c.value, label: c.label, current: c.current, new_price: c.new_price, price_difference: c.price_difference, prorated_amount: c.prorated_amount }))),
    pending_invoice_no: o.pending_invoice_no,
  };
}

export const upgradeQuoteSchema = z
  .object({
    direction: z.enum(['upgrade', 'downgrade']),
    changes: z.array(z.object({ field: z.string(), name: z.string(), from: z.string(), to: z.string() })),
    config: z.record(z.string(), z.object({ value: z.number().int(), label: z.string() })).openapi({ description: '变更后的完整配置' }),
    old_price: moneyString.openapi({ description: '当前锁定的每周期价格' }),
    new_price: moneyString.openapi({ description: '变更后每周期价格（本周期剩余时间及以后续费的锁定价格）' }),
    period: prorationSchema,
    credit: moneyString.openapi({ description: '旧配置剩余天数的价值：锁定价格 × 剩余天数 / 周期天数（四舍五入到分）' }),
    charge: moneyString.openapi({ description: '新配置剩余天数的价格：credit + difference' }),
    difference: moneyString.openapi({ description: '(新价格 − 锁定价格) × 剩余天数 / 周期天数，精确计算后四舍五入到分（仅舍入一次）' }),
    discount_amount: moneyString.openapi({ description: '会员折扣与优惠券在升级差额上的优惠（降级为 0.00）' }),
    amount: moneyString.openapi({ description: '账单金额：difference 为正时为 difference 减去 discount_amount（不低于 0.00），否则 0.00' }),
    credit_to_balance: moneyString.openapi({ description: '降级时上游确认后退还至余额的金额，否则 0.00' }),
    currency: z.literal('CNY'),
  })
  .openapi('UpgradeQuote');

export function upgradeQuoteResource(q: UpgradeQuote) {
  const p = q.proration;
  return {
    direction: q.direction,
    changes: q.changes.map((c) => ({ field: c.field, name: c.name, from: c.from, to: c.to })),
    config: Object.fromEntries(Object.entries(q.config).map(([k, v]) => [k, { value: v.value, label: v.label }])),
    old_price: p.old_price,
    new_price: p.new_price,
    period: { period_start: p.period_start, due_date: p.due_date, today: p.today, days_in_period: p.days_in_period, days_left: p.days_left },
    credit: p.credit,
    charge: p.charge,
    difference: p.difference,
    discount_amount: q.discount_amount,
    amount: q.amount,
    credit_to_balance: q.credit_to_balance,
    currency: 'CNY' as const,
  };
}
