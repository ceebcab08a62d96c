import { z } from '@hono/zod-openapi';
import { COUPON_KINDS, COUPON_SCENES, COUPON_STATUSES, COUPON_USE_STATUSES } from '../../../db/models/marketing.js';
import { createCampaign, createCoupon, getCampaign, getCoupon, listCampaigns, listCoupons, listCouponUses, summarizeCouponUses, updateCoupon, type CouponInput } from '../../../domain/marketing/coupons.js';
import { ErrorCode } from '../../../lib/errors.js';
import { parseDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { campaignResource, campaignSchema, couponResource, couponSchema, couponUseResource, couponUseSchema } from '../../resources/marketing.js';
import { idInput, idParam, idQuery, jsonBody, listQuery, moneyInput } from '../../schemas.js';

const tags = ['管理端：优惠券'];

const dateTimeInput = z
  .string()
  .max(19)
  .refine((v) => parseDateTime(v) !== null, { error: '时间格式应为 YYYY-MM-DD HH:mm:ss' })
  .transform((v) => parseDateTime(v) as Date)
  .openapi({ type: 'string', example: '2026-12-31 23:59:59' });

const idList = z.array(idInput(), { error: '必须是编号数组' }).max(200, { error: '最多 200 个' });

/** The fields every coupon takes (a coupon of its own, or a campaign's template). */
export const couponFields = {
  name: z.string({ error: '请填写名称' }).trim().min(1, { error: '请填写名称' }).max(64, { error: '名称最多 64 个字符' }),
  kind: z.enum(COUPON_KINDS, { error: '类型只能是 percent（折扣）或 fixed（立减）' }),
  value: moneyInput,
  min_amount: moneyInput.optional(),
  product_ids: idList.optional().openapi({ description: '适用商品；与 menu_ids 都为空表示全部商品' }),
  menu_ids: idList.optional().openapi({ description: '适用一级菜单' }),
  new_customers_only: z.boolean().optional(),
  scenes: z.array(z.enum(COUPON_SCENES, { error: '场景只能是 purchase、renewal、upgrade' })).min(1, { error: '至少选择一个使用场景' }).max(3).optional(),
  starts_at: dateTimeInput.nullable().optional(),
  ends_at: dateTimeInput.nullable().optional(),
  total_uses: z.number().int({ error: '总次数必须是整数' }).min(1, { error: '总次数至少为 1' }).max(10_000_000).nullable().optional(),
  per_user_limit: z.number().int({ error: '每人次数必须是整数' }).min(1, { error: '每人次数至少为 1' }).max(10_000).nullable().optional(),
  status: z.enum(COUPON_STATUSES).optional(),
  is_public: z.boolean().optional(),
  owner_user_id: idInput('用户编号必须是正整数').nullable().optional().openapi({ description: '发给指定用户（只有该用户可用、可见）' }),
};

const codeField = z.string({ error: '请填写优惠码' }).trim().regex(/^[A-Za-z0-9_-]{4,32}$/, { error: '优惠码为 4 到 32 位字母、数字、下划线或短横线' });

const couponObject = z.object(couponFields);
type CouponBody = z.infer<typeof couponObject>;
export { couponObject };

export function couponInputOf(body: CouponBody): Omit<CouponInput, 'code'> {
  return {
    name: body.name,
    kind: body.kind,
    value: body.value,
    min_amount: body.min_amount ?? '0',
    product_ids: body.product_ids ?? [],
    menu_ids: body.menu_ids ?? [],
    new_customers_only: body.new_customers_only ?? false,
    scenes: [...new Set(body.scenes ?? (['purchase'] as const))],
    starts_at: body.starts_at ?? null,
    ends_at: body.ends_at ?? null,
    total_uses: body.total_uses ?? null,
    per_user_limit: body.per_user_limit ?? null,
    status: body.status ?? 'active',
    is_public: body.is_public ?? false,
    owner_user_id: body.owner_user_id ?? null,
  };
}

const RULES =
  '规则：percent 的 value 为折扣百分比（0 到 100 之间，不含两端），fixed 为立减金额；先按会员等级折扣，再对剩余金额用优惠券（门槛 min_amount 也按会员折扣后的金额判断），合计不低于 0。每次使用随账单预占（总次数与每人次数由条件更新保证不超），账单支付后生效，取消或过期释放。';

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupons',
  tags,
  summary: '优惠券列表',
  description: '按优惠码或名称搜索，按状态、活动筛选；按编号倒序。',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { query: listQuery({ keyword: z.string().max(64).optional(), status: z.enum(COUPON_STATUSES).optional(), campaign_id: idQuery().optional() }) },
  data: pageSchema(couponSchema),
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/admin/coupons',
  tags,
  summary: '创建优惠券',
  description: `${RULES} 优惠码不区分大小写（存为大写），重复 40900。`,
  access: { surface: 'admin', permission: 'coupon.manage' },
  request: jsonBody(z.object({ code: codeField, ...couponFields })),
  data: couponSchema,
  errors: [ErrorCode.CONFLICT],
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupons/{id}',
  tags,
  summary: '优惠券详情',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id') },
  data: couponSchema,
});

const update = defineRoute({
  method: 'put',
  path: '/api/v2/admin/coupons/{id}',
  tags,
  summary: '修改优惠券（含停用、启用）',
  description: `优惠码不可修改。总次数不能少于已使用次数（42200）。${RULES}`,
  access: { surface: 'admin', permission: 'coupon.manage' },
  request: { params: idParam('id'), ...jsonBody(z.object(couponFields)) },
  data: couponSchema,
});

const usesFilters = { status: z.enum(COUPON_USE_STATUSES).optional(), user_id: idQuery().optional() };
const usesQuery = listQuery(usesFilters);
const usesSchema = pageSchema(couponUseSchema);
const usesSummarySchema = z
  .object({
    count: z.number().int().openapi({ description: '筛选范围内的使用记录数' }),
    discount_amount: z.string().openapi({ description: '筛选范围内未释放使用的优惠金额合计' }),
    final_discount_amount: z.string().openapi({ description: '其中已生效（账单已支付）的合计' }),
  })
  .openapi('CouponUseSummary');
const SUMMARY_NOTE = '合计不在列表里：同样的筛选条件（status、user_id）见同路径下的 /summary。';

const uses = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupons/{id}/uses',
  tags,
  summary: '优惠券使用记录',
  description: SUMMARY_NOTE,
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id'), query: usesQuery },
  data: usesSchema,
});

const usesSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupons/{id}/uses/summary',
  tags,
  summary: '优惠券使用记录的合计（条数与优惠金额）',
  description: '筛选条件与使用记录列表相同（不分页）。',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id'), query: z.object(usesFilters) },
  data: usesSummarySchema,
});

const campaignList = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupon-campaigns',
  tags,
  summary: '优惠券活动列表',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { query: listQuery({}) },
  data: pageSchema(campaignSchema),
});

const campaignCreate = defineRoute({
  method: 'post',
  path: '/api/v2/admin/coupon-campaigns',
  tags,
  summary: '创建优惠券活动（批量生成唯一码或一个共享码）',
  description: `mode=batch：生成 count 个唯一优惠码（前缀 code_prefix，每个码总共只能用一次）；mode=shared：一个共享码 code，次数按模板。其余字段为优惠券模板。${RULES}`,
  access: { surface: 'admin', permission: 'coupon.campaign' },
  request: jsonBody(
    z.object({
      campaign_name: z.string({ error: '请填写活动名称' }).trim().min(1, { error: '请填写活动名称' }).max(64),
      description: z.string().max(255).optional(),
      mode: z.enum(['batch', 'shared'], { error: 'mode 只能是 batch 或 shared' }),
      count: z.number().int({ error: '数量必须是整数' }).min(1, { error: '数量至少为 1' }).max(1000, { error: '一次最多生成 1000 个' }).optional(),
      code_prefix: z.string().regex(/^[A-Za-z0-9]{0,12}$/, { error: '前缀为最多 12 位字母或数字' }).optional(),
      code: codeField.optional(),
      ...couponFields,
    }),
  ),
  data: campaignSchema,
  errors: [ErrorCode.CONFLICT],
});

const campaignDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupon-campaigns/{id}',
  tags,
  summary: '优惠券活动详情（码数、使用次数与优惠合计）',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id') },
  data: campaignSchema,
});

const campaignUses = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupon-campaigns/{id}/uses',
  tags,
  summary: '优惠券活动的使用记录',
  description: SUMMARY_NOTE,
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id'), query: usesQuery },
  data: usesSchema,
});

const campaignUsesSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/coupon-campaigns/{id}/uses/summary',
  tags,
  summary: '优惠券活动使用记录的合计（条数与优惠金额）',
  description: '筛选条件与活动使用记录列表相同（不分页）。',
  access: { surface: 'admin', permission: 'coupon.view' },
  request: { params: idParam('id'), query: z.object(usesFilters) },
  data: usesSummarySchema,
});

export const adminCouponRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listCoupons(c.var.deps, query);
    return ok(c, page(rows.map(couponResource), total, query));
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    return ok(c, couponResource(await createCoupon(c.var.deps, { code: body.code, ...couponInputOf(body) })), '优惠券已创建');
  })
  .openapi(detail, async (c) => ok(c, couponResource(await getCoupon(c.var.deps, c.req.valid('param').id))))
  .openapi(update, async (c) => ok(c, couponResource(await updateCoupon(c.var.deps, c.req.valid('param').id, couponInputOf(c.req.valid('json')))), '优惠券已保存'))
  .openapi(uses, async (c) => {
    const id = c.req.valid('param').id;
    await getCoupon(c.var.deps, id);
    const query = c.req.valid('query');
    const found = await listCouponUses(c.var.deps, { couponId: id, status: query.status, ...(query.user_id ? { userId: query.user_id } : {}), page: query.page, page_size: query.page_size });
    return ok(c, page(found.rows.map(couponUseResource), found.total, query));
  })
  .openapi(usesSummary, async (c) => {
    const id = c.req.valid('param').id;
    await getCoupon(c.var.deps, id);
    const query = c.req.valid('query');
    return ok(c, await summarizeCouponUses(c.var.deps, { couponId: id, status: query.status, ...(query.user_id ? { userId: query.user_id } : {}) }));
  })
  .openapi(campaignList, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listCampaigns(c.var.deps, query);
    return ok(c, page(rows.map(campaignResource), total, query));
  })
  .openapi(campaignCreate, async (c) => {
    const body = c.req.valid('json');
    const campaign = await createCampaign(c.var.deps, {
      name: body.campaign_name,
      description: body.description ?? '',
      mode: body.mode,
      count: body.count ?? 1,
      code_prefix: body.code_prefix ?? '',
      code: body.code ?? null,
      coupon: couponInputOf(body),
    });
    return ok(c, campaignResource(campaign), '优惠券活动已创建');
  })
  .openapi(campaignDetail, async (c) => ok(c, campaignResource(await getCampaign(c.var.deps, c.req.valid('param').id))))
  .openapi(campaignUses, async (c) => {
    const id = c.req.valid('param').id;
    await getCampaign(c.var.deps, id);
    const query = c.req.valid('query');
    const found = await listCouponUses(c.var.deps, { campaignId: id, status: query.status, ...(query.user_id ? { userId: query.user_id } : {}), page: query.page, page_size: query.page_size });
    return ok(c, page(found.rows.map(couponUseResource), found.total, query));
  })
  .openapi(campaignUsesSummary, async (c) => {
    const id = c.req.valid('param').id;
    await getCampaign(c.var.deps, id);
    const query = c.req.valid('query');
    return ok(c, await summarizeCouponUses(c.var.deps, { campaignId: id, status: query.status, ...(query.user_id ? { userId: query.user_id } : {}) }));
  });
