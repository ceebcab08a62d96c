import { z } from '@hono/zod-openapi';
import { userAudit } from '../../../domain/billing/audit.js';
import { COMMISSION_KINDS, COMMISSION_STATUSES, WITHDRAWAL_METHODS, WITHDRAWAL_STATUSES } from '../../../db/models/marketing.js';
import { getReferralOverview, listCommissions, listInvitees, summarizeCommissions } from '../../../domain/marketing/referrals.js';
import { REFERRAL_DEFAULTS } from '../../../domain/marketing/referral-config.js';
import { getWithdrawal, listWithdrawals, requestWithdrawal } from '../../../domain/marketing/withdrawals.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  commissionResource,
  commissionSchema,
  commissionSummarySchema,
  inviteeResource,
  inviteeSchema,
  referralOverviewResource,
  referralOverviewSchema,
  withdrawalResource,
  withdrawalSchema,
} from '../../resources/marketing.js';
import { idParam, jsonBody, listQuery, moneyInput } from '../../schemas.js';

const tags = ['客户端：推广返佣'];

const overview = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral',
  tags,
  summary: '我的邀请码、邀请链接与佣金',
  description:
    '邀请码每个用户一个；新用户注册时填写邀请码即绑定邀请人（仅一次，不能是自己，之后不可更改）。被邀请人支付的新购、续费、流量包账单按比例产生佣金：先冻结（pending_amount），冻结期后转为可提现（available_amount）；账单退款时按退款比例扣回（负数记录），已解冻的也扣回，可提现佣金可能因此为负。',
  access: { surface: 'client' },
  data: referralOverviewSchema,
});

const invitees = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral/invitees',
  tags,
  summary: '我邀请的用户（邮箱、手机号掩码）',
  access: { surface: 'client' },
  request: { query: listQuery({}) },
  data: pageSchema(inviteeSchema),
});

const commissionFilters = { kind: z.enum(COMMISSION_KINDS).optional(), status: z.enum(COMMISSION_STATUSES).optional() };

const commissions = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral/commissions',
  tags,
  summary: '我的佣金记录（含扣回）',
  description: '筛选范围的合计见 GET /api/v2/client/referral/commissions/summary（同样的筛选条件）。',
  access: { surface: 'client' },
  request: { query: listQuery(commissionFilters) },
  data: pageSchema(commissionSchema),
});

const commissionsSummary = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral/commissions/summary',
  tags,
  summary: '我的佣金记录合计',
  description: '筛选条件与佣金记录列表相同（不分页）：count 为记录数，amount 为金额合计（扣回为负数）。',
  access: { surface: 'client' },
  request: { query: z.object(commissionFilters) },
  data: commissionSummarySchema,
});

const withdrawals = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral-withdrawals',
  tags,
  summary: '我的佣金提现申请',
  access: { surface: 'client' },
  request: { query: listQuery({ status: z.enum(WITHDRAWAL_STATUSES).optional() }) },
  data: pageSchema(withdrawalSchema),
});

const withdrawalDetail = defineRoute({
  method: 'get',
  path: '/api/v2/client/referral-withdrawals/{id}',
  tags,
  summary: '提现申请详情',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: withdrawalSchema,
});

const withdraw = defineRoute({
  method: 'post',
  path: '/api/v2/client/referral-withdrawals',
  tags,
  summary: '申请提现佣金',
  description: `method=balance 提现到账户余额（审核通过即到账）；external 提现到外部账户（需 account_name、account_no，审核通过后线下打款）。单次最低、最高金额与每日合计上限见系统设置 referral.*（默认 ${REFERRAL_DEFAULTS.withdrawalMin} 到 ${REFERRAL_DEFAULTS.withdrawalMax} 元，每日 ${REFERRAL_DEFAULTS.withdrawalDailyLimit} 元），超出 42200。金额由一条条件更新从可提现佣金中冻结，绝不超提（不足 40982）。`,
  access: { surface: 'client', precondition: 'withdrawal' },
  request: jsonBody(
    z.object({
      amount: moneyInput,
      method: z.enum(WITHDRAWAL_METHODS, { error: '提现方式只能是 balance 或 external' }),
      account_name: z.string().trim().max(64, { error: '收款人姓名最多 64 个字符' }).optional(),
      account_no: z.string().trim().max(64, { error: '收款账号最多 64 个字符' }).optional(),
    }),
  ),
  data: withdrawalSchema,
  errors: [ErrorCode.COMMISSION_INSUFFICIENT],
  idempotent: true,
});

export const clientReferralRoutes = createRouter()
  .openapi(overview, async (c) => ok(c, referralOverviewResource(await getReferralOverview(c.var.deps, c.var.client.id), c.var.deps.config.publicBaseUrl)))
  .openapi(invitees, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listInvitees(c.var.deps, c.var.client.id, query);
    return ok(c, page(rows.map(inviteeResource), total, query));
  })
  .openapi(commissions, async (c) => {
    const q = c.req.valid('query');
    const found = await listCommissions(c.var.deps, { userId: c.var.client.id, kind: q.kind, status: q.status, page: q.page, page_size: q.page_size });
    return ok(c, page(found.rows.map(commissionResource), found.total, q));
  })
  .openapi(commissionsSummary, async (c) => {
    const q = c.req.valid('query');
    return ok(c, await summarizeCommissions(c.var.deps, { userId: c.var.client.id, kind: q.kind, status: q.status }));
  })
  .openapi(withdrawals, async (c) => {
    const q = c.req.valid('query');
    const found = await listWithdrawals(c.var.deps, { userId: c.var.client.id, status: q.status, page: q.page, page_size: q.page_size });
    return ok(c, page(found.rows.map(withdrawalResource), found.total, q));
  })
  .openapi(withdrawalDetail, async (c) => ok(c, withdrawalResource(await getWithdrawal(c.var.deps, c.req.valid('param').id, c.var.client.id))))
  .openapi(withdraw, async (c) => {
    const body = c.req.valid('json');
    const userId = c.var.client.id;
    const w = await requestWithdrawal(
      c.var.deps,
      { userId, amount: body.amount, method: body.method, accountName: body.account_name, accountNo: body.account_no },
      userAudit(userId, c.var.requestId),
    );
    return ok(c, withdrawalResource(w), '提现申请已提交');
  });
