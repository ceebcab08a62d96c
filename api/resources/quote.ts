import { z } from '@hono/zod-openapi';
import { BILLING_PERIODS } from '../../domain/catalogue/billing-periods.js';
import { PRODUCT_TYPES } from '../../db/models/catalogue.js';
import { moneyString } from '../schemas.js';

/** A product quote, with the discounts of the signed-in user (member level, coupon) when there are any. */
export const discountedQuoteSchema = z
  .object({
    product_id: z.number().int(),
    product_name: z.string(),
    product_type: z.enum(PRODUCT_TYPES),
    billing_period: z.enum(BILLING_PERIODS),
    quantity: z.number().int(),
    config: z.record(z.string(), z.object({ value: z.number().int(), label: z.string() })).openapi({ description: '每个配置项最终使用的值（含默认值与隐藏项）' }),
    lines: z.array(
      z.object({
        key: z.string().openapi({ description: 'base、config.<field>，或折扣行 discount.member、discount.coupon（金额为负）' }),
        label: z.string(),
        unit_amount: moneyString.openapi({ description: '单个实例的金额（折扣行为整单折扣）' }),
        quantity: z.number().int(),
        amount: moneyString,
      }),
    ),
    subtotal_amount: moneyString.openapi({ description: '折扣前合计' }),
    discount_amount: moneyString.openapi({ description: '会员折扣与优惠券合计' }),
    total_amount: moneyString.openapi({ description: '应付金额（= 账单金额）' }),
    coupon_code: z.string().nullable(),
    member_level: z.object({ id: z.number().int(), name: z.string(), discount_percent: z.string() }).nullable(),
    currency: z.literal('CNY'),
  })
  .openapi('ProductQuote');
