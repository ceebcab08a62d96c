import { z } from '@hono/zod-openapi';
import { assignMemberLevel, createMemberLevel, deleteMemberLevel, getMemberLevel, getUserLevel, listMemberLevels, updateMemberLevel } from '../../../domain/marketing/member-levels.js';
import { ErrorCode, notFound } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { memberLevelResource, memberLevelSchema, userLevelResource, userLevelSchema } from '../../resources/marketing.js';
import { idInput, idParam, jsonBody, listQuery, moneyInput } from '../../schemas.js';
import { percentInput } from './referrals.js';

const tags = ['管理端：会员等级'];

const idList = z.array(idInput(), { error: '必须是编号数组' }).max(200, { error: '最多 200 个' });

const levelBody = z.object({
  name: z.string({ error: '请填写等级名称' }).trim().min(1, { error: '请填写等级名称' }).max(64, { error: '名称最多 64 个字符' }),
  discount_percent: percentInput.refine((v) => Number(v) < 100, { error: '折扣百分比必须小于 100' }).optional(),
  product_ids: idList.optional().openapi({ description: '折扣适用的商品；与 menu_ids 都为空表示全部商品' }),
  menu_ids: idList.optional(),
  commission_rate: percentInput.optional(),
  min_spend: moneyInput.refine((v) => !v.startsWith('-'), { error: '消费门槛不能为负数' }).nullable().optional(),
  sort_order: z.number().int().min(0).max(1_000_000).optional(),
});

function levelInput(body: z.infer<typeof levelBody>) {
  return {
    name: body.name,
    discount_percent: body.discount_percent ?? '0',
    product_ids: body.product_ids ?? [],
    menu_ids: body.menu_ids ?? [],
    commission_rate: body.commission_rate ?? '0',
    min_spend: body.min_spend ?? null,
    sort_order: body.sort_order ?? 0,
  };
}

const RULE =
  '会员折扣由统一计价函数计入报价与账单（一行负数明细 discount.member）：先按等级折扣，再用优惠券。等级由管理员指定（source=admin，按消费的任务不改），或由每日任务 member_levels.apply_spend 按已支付消费（扣除退款）达到 min_spend 自动设置（source=spend）。邀请人的等级决定其返佣比例（商品单独比例优先）。';

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/member-levels',
  tags,
  summary: '会员等级列表',
  description: RULE,
  access: { surface: 'admin', permission: 'member_level.view' },
  request: { query: listQuery({}) },
  data: pageSchema(memberLevelSchema),
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/admin/member-levels',
  tags,
  summary: '创建会员等级',
  description: `${RULE} 名称重复 40900。`,
  access: { surface: 'admin', permission: 'member_level.manage' },
  request: jsonBody(levelBody),
  data: memberLevelSchema,
  errors: [ErrorCode.CONFLICT],
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/member-levels/{id}',
  tags,
  summary: '会员等级详情',
  access: { surface: 'admin', permission: 'member_level.view' },
  request: { params: idParam('id') },
  data: memberLevelSchema,
});

const update = defineRoute({
  method: 'put',
  path: '/api/v2/admin/member-levels/{id}',
  tags,
  summary: '修改会员等级',
  access: { surface: 'admin', permission: 'member_level.manage' },
  request: { params: idParam('id'), ...jsonBody(levelBody) },
  data: memberLevelSchema,
  errors: [ErrorCode.CONFLICT],
});

const remove = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/member-levels/{id}',
  tags,
  summary: '删除会员等级（无用户处于该等级时）',
  access: { surface: 'admin', permission: 'member_level.manage' },
  request: { params: idParam('id') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

const userLevel = defineRoute({
  method: 'get',
  path: '/api/v2/admin/member-levels/users/{user}',
  tags,
  summary: '用户的会员等级',
  access: { surface: 'admin', permission: 'member_level.view' },
  request: { params: idParam('user') },
  data: userLevelSchema,
});

const assign = defineRoute({
  method: 'put',
  path: '/api/v2/admin/member-levels/users/{user}',
  tags,
  summary: '指定用户的会员等级',
  description: 'level_id 为 null 时取消指定，用户回到按消费自动达到的等级（下次任务运行时）。',
  access: { surface: 'admin', permission: 'member_level.manage' },
  request: { params: idParam('user'), ...jsonBody(z.object({ level_id: idInput('等级编号必须是正整数').nullable() })) },
  data: userLevelSchema,
});

export const adminMemberLevelRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listMemberLevels(c.var.deps, query);
    return ok(c, page(rows.map(memberLevelResource), total, query));
  })
  .openapi(create, async (c) => ok(c, memberLevelResource(await createMemberLevel(c.var.deps, levelInput(c.req.valid('json')))), '会员等级已创建'))
  .openapi(detail, async (c) => ok(c, memberLevelResource(await getMemberLevel(c.var.deps, c.req.valid('param').id))))
  .openapi(update, async (c) =>
    ok(c, memberLevelResource(await updateMemberLevel(c.var.deps, c.req.valid('param').id, levelInput(c.req.valid('json')))), '会员等级已保存'),
  )
  .openapi(remove, async (c) => {
    await deleteMemberLevel(c.var.deps, c.req.valid('param').id);
    return ok(c, null, '会员等级已删除');
  })
  .openapi(userLevel, async (c) => {
    const userId = c.req.valid('param').user;
    const user = await c.var.deps.db.models.User.findByPk(userId, { attributes: ['id'] });
    if (!user) throw notFound('用户不存在');
    return ok(c, userLevelResource(await getUserLevel(c.var.deps, userId)));
  })
  .openapi(assign, async (c) =>
    ok(c, userLevelResource(await assignMemberLevel(c.var.deps, c.req.valid('param').user, c.req.valid('json').level_id)), '会员等级已更新'),
  );

