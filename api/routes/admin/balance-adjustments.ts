import { z } from '@hono/zod-openapi';
import { validationError } from '../../../lib/errors.js';
import { money } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { adminAudit } from '../../../domain/billing/audit.js';
import { ADJUSTMENT_MAX_AMOUNT } from '../../../domain/billing/constants.js';
import { getBalance } from '../../../domain/billing/ledger/get-balance.js';
import { adjustBalance } from '../../../domain/billing/recharge/adjust-balance.js';
import { getUser } from '../../../domain/users/users.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateTimeString, idParam, jsonBody, moneyInput, moneyString } from '../../schemas.js';

const tags = ['管理端：财务单据'];
const REMARK_MAX = 200;

const recharge = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/recharges',
  tags,
  summary: '后台余额调整（充值或扣款）',
  description: [
    `amount 大于 0 充值、小于 0 扣款，为 0 无效（42200）；最多两位小数，绝对值不超过 ${ADJUSTMENT_MAX_AMOUNT}。remark（原因）必填，最多 ${REMARK_MAX} 个字符。`,
    '充值：已结清的 recharge 账单（渠道 admin）、正数 admin_recharge 流水、admin_recharge 充值记录（固定备注加操作人与时间，原因另存）。扣款：已结清的 deduction 账单、负数 admin_deduction 流水（可使余额为负）、不生成充值记录。',
    'detail.adjustment.amount 为调整金额的绝对值（两位小数字符串），direction 为 increase（充值）或 decrease（扣款）。',
  ].join('\n\n'),
  access: { surface: 'admin', permission: 'user.recharge', stepUp: true },
  request: {
    params: idParam('user'),
    ...jsonBody(z.object({ amount: moneyInput, remark: z.string({ error: '请填写调整原因' }) })),
  },
  data: z.object({
    id: z.number().int().openapi({ description: '生成的账单 id' }),
    status: z.literal('succeeded'),
    message: z.string(),
    detail: z.object({
      type: z.enum(['admin_recharge', 'admin_deduction']),
      user: z.object({ id: z.number().int() }),
      adjustment: z.object({ amount: moneyString, direction: z.enum(['increase', 'decrease']), balance_after: moneyString }),
      documents: z.object({ invoice_id: z.number().int(), account_transaction_id: z.number().int(), recharge_record_id: z.number().int().nullable() }),
    }),
  }),
});

const account = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/account',
  tags,
  summary: '用户余额账户',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('user') },
  data: z.object({ user_id: z.number().int(), balance: moneyString, currency: z.literal('CNY'), updated_at: dateTimeString.nullable() }),
});

export const adminBalanceAdjustmentRoutes = createRouter()
  .openapi(recharge, async (c) => {
    const body = c.req.valid('json');
    const remark = body.remark.trim();
    const errors: Record<string, string[]> = {};
    const amount = money(body.amount);
    if (amount.isZero()) errors.amount = ['调整金额不能为 0'];
    if (remark === '') errors.remark = ['请填写调整原因'];
    else if ([...remark].length > REMARK_MAX) errors.remark = [`调整原因最多 ${REMARK_MAX} 个字符`];
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const done = await adjustBalance(c.var.deps, { userId: c.req.valid('param').user, amount, remark }, adminAudit(c.var.admin, c.var.requestId));
    const increase = done.direction === 'increase';
    const message = increase ? '余额充值成功' : '余额扣款成功';
    return ok(
      c,
      {
        id: done.invoiceId,
        status: 'succeeded' as const,
        message,
        detail: {
          type: increase ? ('admin_recharge' as const) : ('admin_deduction' as const),
          user: { id: done.userId },
          adjustment: { amount: done.amount, direction: done.direction, balance_after: done.balanceAfter },
          documents: { invoice_id: done.invoiceId, account_transaction_id: done.accountTransactionId, recharge_record_id: done.rechargeRecordId },
        },
      },
      message,
    );
  })
  .openapi(account, async (c) => {
    const user = await getUser(c.var.deps, c.req.valid('param').user);
    const found = await getBalance(c.var.deps, user.id);
    return ok(c, { user_id: user.id, balance: found.balance, currency: found.currency, updated_at: formatDateTime(found.updated_at) });
  });
