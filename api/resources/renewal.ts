import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import { BILLING_PERIODS } from '../../domain/catalogue/billing-periods.js';
import type { RenewalPreview } from '../../domain/services/renewals/preview-renewal.js';
import { dateTimeString, moneyString } from '../schemas.js';

const optionSchema = z.object({
  billing_period: z.enum(BILLING_PERIODS),
  label: z.string(),
  months: z.number().int(),
  amount: moneyString,
  currency: z.literal('CNY'),
  is_current: z.boolean().openapi({ description: '服务自己的计费周期，按锁定的价格续费' }),
  next_due_at: dateTimeString.nullable().openapi({ description: '现在续费并完成后的到期时间（从当前到期时间顺延）' }),
});

export const renewalPreviewSchema = z
  .object({
    service_id: z.number().int(),
    renewable: z.boolean(),
    reason: z.string().nullable().openapi({ description: '不可续费的原因' }),
    billing_period: z.string(),
    next_due_at: dateTimeString.nullable(),
    options: z.array(optionSchema),
    unpaid_invoice: z
      .object({ id: z.number().int(), invoice_no: z.string(), billing_period: z.string(), amount: moneyString })
      .nullable()
      .openapi({ description: '已有的未支付续费账单（同一服务最多一张）' }),
    in_progress_invoice_id: z.number().int().nullable().openapi({ description: '已支付、仍在处理中的续费账单' }),
  })
  .openapi('RenewalPreview');

export function renewalPreviewResource(p: RenewalPreview) {
  return {
    service_id: p.service_id,
    renewable: p.renewable,
    reason: p.reason,
    billing_period: p.billing_period,
    next_due_at: formatDateTime(p.next_due_at),
    options: p.options.map((o) => ({
      billing_period: o.billing_period,
      label: o.label,
      months: o.months,
      amount: formatMoney(o.amount),
      currency: 'CNY' as const,
      is_current: o.is_current,
      next_due_at: formatDateTime(o.next_due_at),
    })),
    unpaid_invoice: p.unpaid_invoice ? { ...p.unpaid_invoice, amount: formatMoney(p.unpaid_invoice.amount) } : null,
    in_progress_invoice_id: p.in_progress_invoice_id,
  };
}
