import { z } from '@hono/zod-openapi';
import { adminAudit } from '../../../domain/billing/audit.js';
import { COMMISSION_KINDS, COMMISSION_STATUSES, WITHDRAWAL_METHODS, WITHDRAWAL_STATUSES } from '../../../db/models/marketing.js';
import { clearProductRate, listCommissions, listProductRates, listReferralAccounts, setProductRate, summarizeCommissions } from '../../../domain/marketing/referrals.js';
import { approveWithdrawal, getWithdrawal, listWithdrawals, markWithdrawalPaid, rejectWithdrawal, summarizeWithdrawals } from '../../../domain/marketing/withdrawals.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  adminCommissionResource,
  adminCommissionSchema,
  commissionSummarySchema,
  productRateResource,
  productRateSchema,
  referralAccountResource,
  referralAccountSchema,
  withdrawalResource,
  withdrawalSchema,
} from '../../resources/marketing.js';
import { idParam, idQuery, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：推广返佣与提现'];

export const percentInput = z
  .union([z.string(), z.number()])
  .refine((v) => /^\d{1,3}(\.\d{1,2})?$/.test(String(v).trim()) && Number(v) <= 100, { error: '比例为 0 到 100 之间、最多两位小数的百分数' })
  .transform((v) => String(v).trim())
  .openapi({ type: 'string', example: '5.00' });

const accounts = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral/accounts',
  tags,
  summary: '推广账户（邀请码、邀请人、佣金余额）',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: listQuery({ user_id: idQuery().optional() }) },
  data: pageSchema(referralAccountSchema),
});

const commissionFilters = {
  user_id: idQuery().optional(),
  invitee_id: idQuery().optional(),
  invoice_id: idQuery().optional(),
  kind: z.enum(COMMISSION_KINDS).optional(),
  status: z.enum(COMMISSION_STATUSES).optional(),
};

const commissions = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral/commissions',
  tags,
  summary: '佣金流水（含扣回）',
  description: '每条记录有唯一幂等键：commission:<账单号>（每张账单一条）或 clawback:<退款单号>（每次退款一条）。筛选范围的合计见 GET /api/v2/admin/referral/commissions/summary（同样的筛选条件）。',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: listQuery(commissionFilters) },
  data: pageSchema(adminCommissionSchema),
});

const commissionsSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral/commissions/summary',
  tags,
  summary: '佣金流水合计',
  description: '筛选条件与佣金流水列表相同（不分页）：count 为记录数，amount 为金额合计（扣回为负数）。',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: z.object(commissionFilters) },
  data: commissionSummarySchema,
});

const rates = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral/product-rates',
  tags,
  summary: '商品返佣比例',
  description: '返佣比例优先级：商品单独比例 > 邀请人会员等级的返佣比例 > 默认比例。',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: listQuery({}) },
  data: pageSchema(productRateSchema),
});

const setRate = defineRoute({
  method: 'put',
  path: '/api/v2/admin/referral/product-rates/{product}',
  tags,
  summary: '设置商品返佣比例',
  access: { surface: 'admin', permission: 'referral.manage' },
  request: { params: idParam('product'), ...jsonBody(z.object({ rate: percentInput })) },
  data: productRateSchema,
});

const clearRate = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/referral/product-rates/{product}',
  tags,
  summary: '取消商品返佣比例（回到会员等级或默认比例）',
  access: { surface: 'admin', permission: 'referral.manage' },
  request: { params: idParam('product') },
  data: z.null(),
});

const withdrawalFilters = { user_id: idQuery().optional(), status: z.enum(WITHDRAWAL_STATUSES).optional(), method: z.enum(WITHDRAWAL_METHODS).optional() };

const withdrawalList = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral-withdrawals',
  tags,
  summary: '佣金提现申请',
  description: '按用户、状态、方式筛选；筛选范围内各状态的笔数与金额见 GET /api/v2/admin/referral-withdrawals/summary（同样的筛选条件）。',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: listQuery(withdrawalFilters) },
  data: pageSchema(withdrawalSchema),
});

const withdrawalSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral-withdrawals/summary',
  tags,
  summary: '佣金提现申请合计（各状态笔数与金额）',
  description: '筛选条件与提现申请列表相同（不分页）：count 为申请数，totals 为每个状态的笔数与金额（没有的状态为 0）。',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { query: z.object(withdrawalFilters) },
  data: z
    .object({
      count: z.number().int(),
      totals: z.record(z.enum(WITHDRAWAL_STATUSES), z.object({ count: z.number().int(), amount: z.string() })),
    })
    .openapi('WithdrawalSummary'),
});

const withdrawalDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/referral-withdrawals/{id}',
  tags,
  summary: '提现申请详情',
  access: { surface: 'admin', permission: 'referral.view' },
  request: { params: idParam('id') },
  data: withdrawalSchema,
});

const STATE = '每个状态变更是一条带预期状态的条件更新（同一语句），并发操作只有一个生效，其余 40981。';

const approve = defineRoute({
  method: 'post',
  path: '/api/v2/admin/referral-withdrawals/{id}/approve',
  tags,
  summary: '审核通过提现',
  description: `仅 pending 可通过。提现到余额：同一事务内记一笔 commission_withdrawal 账户流水（幂等键 withdrawal:<提现单号>）并直接变为 paid；提现到外部账户：变为 approved，线下打款后标记已打款。${STATE}`,
  access: { surface: 'admin', permission: 'referral.withdrawal', stepUp: true },
  request: { params: idParam('id') },
  data: withdrawalSchema,
  errors: [ErrorCode.WITHDRAWAL_STATE_CONFLICT],
});

const reject = defineRoute({
  method: 'post',
  path: '/api/v2/admin/referral-withdrawals/{id}/reject',
  tags,
  summary: '驳回提现（金额退回可提现佣金）',
  description: `pending 或 approved（未打款）可驳回，需填写原因。${STATE}`,
  access: { surface: 'admin', permission: 'referral.withdrawal' },
  request: { params: idParam('id'), ...jsonBody(z.object({ reason: z.string({ error: '请填写驳回原因' }).trim().min(1, { error: '请填写驳回原因' }).max(255) })) },
  data: withdrawalSchema,
  errors: [ErrorCode.WITHDRAWAL_STATE_CONFLICT],
});

const markPaid = defineRoute({
  method: 'post',
  path: '/api/v2/admin/referral-withdrawals/{id}/mark-paid',
  tags,
  summary: '标记外部提现已打款',
  description: `仅 approved 的外部账户提现可标记。${STATE}`,
  access: { surface: 'admin', permission: 'referral.withdrawal', stepUp: true },
  request: { params: idParam('id') },
  data: withdrawalSchema,
  errors: [ErrorCode.WITHDRAWAL_STATE_CONFLICT],
});

export const adminReferralRoutes = createRouter()
  .openapi(accounts, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listReferralAccounts(c.var.deps, { userId: query.user_id, page: query.page, page_size: query.page_size });
    return ok(c, page(rows.map(referralAccountResource), total, query));
  })
  .openapi(commissions, async (c) => {
    const q = c.req.valid('query');
    const found = await listCommissions(c.var.deps, { userId: q.user_id, inviteeId: q.invitee_id, invoiceId: q.invoice_id, kind: q.kind, status: q.status, page: q.page, page_size: q.page_size });
    return ok(c, page(found.rows.map(adminCommissionResource), found.total, q));
  })
  .openapi(commissionsSummary, async (c) => {
    const q = c.req.valid('query');
    return ok(c, await summarizeCommissions(c.var.deps, { userId: q.user_id, inviteeId: q.invitee_id, invoiceId: q.invoice_id, kind: q.kind, status: q.status }));
  })
  .openapi(rates, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listProductRates(c.var.deps, query);
    return ok(c, page(rows.map(productRateResource), total, query));
  })
  .openapi(setRate, async (c) => ok(c, productRateResource(await setProductRate(c.var.deps, c.req.valid('param').product, c.req.valid('json').rate)), '返佣比例已保存'))
  .openapi(clearRate, async (c) => {
    await clearProductRate(c.var.deps, c.req.valid('param').product);
    return ok(c, null, '已取消商品返佣比例');
  })
  .openapi(withdrawalList, async (c) => {
    const q = c.req.valid('query');
    const found = await listWithdrawals(c.var.deps, { userId: q.user_id, status: q.status, method: q.method, page: q.page, page_size: q.page_size });
    return ok(c, page(found.rows.map(withdrawalResource), found.total, q));
  })
  // Before the detail route: `summary` is not an {id}.
  .openapi(withdrawalSummary, async (c) => {
    const q = c.req.valid('query');
    return ok(c, await summarizeWithdrawals(c.var.deps, { userId: q.user_id, status: q.status, method: q.method }));
  })
  .openapi(withdrawalDetail, async (c) => ok(c, withdrawalResource(await getWithdrawal(c.var.deps, c.req.valid('param').id))))
  .openapi(approve, async (c) => {
    const w = await approveWithdrawal(c.var.deps, c.req.valid('param').id, adminAudit(c.var.admin, c.var.requestId));
    return ok(c, withdrawalResource(w), w.status === 'paid' ? '已通过并转入余额' : '已通过，待打款');
  })
  .openapi(reject, async (c) => {
    const w = await rejectWithdrawal(c.var.deps, c.req.valid('param').id, c.req.valid('json').reason, adminAudit(c.var.admin, c.var.requestId));
    return ok(c, withdrawalResource(w), '已驳回，金额已退回可提现佣金');
  })
  .openapi(markPaid, async (c) => ok(c, withdrawalResource(await markWithdrawalPaid(c.var.deps, c.req.valid('param').id, adminAudit(c.var.admin, c.var.requestId))), '已标记打款'));
