import { z } from '@hono/zod-openapi';
import { listClientCoupons } from '../../../domain/marketing/coupons.js';
import { quoteForUser } from '../../../domain/marketing/quote.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { clientCouponResource, clientCouponSchema } from '../../resources/marketing.js';
import { discountedQuoteSchema } from '../../resources/quote.js';
import { idInput, jsonBody, listQuery } from '../../schemas.js';

const tags = ['客户端：优惠券'];

const mine = defineRoute({
  method: 'get',
  path: '/api/v2/client/coupons',
  tags,
  summary: '我的优惠券（发给我的）',
  description: 'usable_now 只看状态、有效期与次数；是否适用于某个商品请用 coupons/check。',
  access: { surface: 'client' },
  request: { query: listQuery({}) },
  data: pageSchema(clientCouponSchema),
});

const open = defineRoute({
  method: 'get',
  path: '/api/v2/client/coupons/public',
  tags,
  summary: '公开优惠券',
  description: '管理员设为公开、启用中的优惠券（仍需客户端登录）。',
  access: { surface: 'client' },
  request: { query: listQuery({}) },
  data: pageSchema(clientCouponSchema),
});

const check = defineRoute({
  method: 'post',
  path: '/api/v2/client/coupons/check',
  tags,
  summary: '校验优惠码（按所选商品报价）',
  description:
    '与商品报价、创建账单走同一个计价函数：answer 为使用该优惠码（及会员折扣）后的报价。不可用时 42200，data.errors.coupon_code 说明原因（不存在、已停用、未到时间、已过期、不适用于此场景或商品、未达门槛、仅限新客户、已领完、已达个人上限）。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: jsonBody(
    z.object({
      coupon_code: z.string({ error: '请填写优惠码' }).min(1, { error: '请填写优惠码' }).max(32),
      product_id: idInput('请选择商品'),
      billing_period: z.string({ error: '请选择计费周期' }).min(1).max(32),
      config: z.record(z.string().max(64), z.union([z.number(), z.string().max(32)])).optional(),
      quantity: z.number().int().optional(),
    }),
  ),
  data: discountedQuoteSchema,
  errors: [ErrorCode.OUT_OF_STOCK, ErrorCode.NOT_PURCHASABLE_ONLINE, ErrorCode.PRICE_BELOW_UPSTREAM_COST],
});

export const clientCouponRoutes = createRouter()
  .openapi(mine, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listClientCoupons(c.var.deps, c.var.client.id, { public: false, ...query });
    return ok(c, page(rows.map(clientCouponResource), total, query));
  })
  .openapi(open, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listClientCoupons(c.var.deps, c.var.client.id, { public: true, ...query });
    return ok(c, page(rows.map(clientCouponResource), total, query));
  })
  .openapi(check, async (c) => {
    const body = c.req.valid('json');
    const quote = await quoteForUser(c.var.deps, {
      userId: c.var.client.id,
      productId: body.product_id,
      billingPeriod: body.billing_period,
      config: body.config ?? {},
      quantity: body.quantity ?? 1,
      couponCode: body.coupon_code,
    });
    return ok(c, quote, '优惠码可用');
  });
