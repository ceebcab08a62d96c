import { z } from '@hono/zod-openapi';
import { checkLedgerIntegrity, INTEGRITY_RULES } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateTimeString, idQuery } from '../../schemas.js';

const SHOWN = 100;

const integrity = defineRoute({
  method: 'get',
  path: '/api/v2/admin/finance/integrity',
  tags: ['管理端：财务单据'],
  summary: '账务一致性检查',
  description: `逐条核对资金不变量：${INTEGRITY_RULES.map((r) => `${r.rule}（${r.message}）`).join('；')}。ok 为 true 表示全部成立；violations 最多返回 ${SHOWN} 条，total 为总数。可按 user_id 只查一个用户。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { query: z.object({ user_id: idQuery().optional() }) },
  data: z.object({
    ok: z.boolean(),
    checked_at: dateTimeString.nullable(),
    rules: z.number().int(),
    total: z.number().int(),
    violations: z.array(z.object({ rule: z.string(), message: z.string(), subject_type: z.string(), subject_id: z.number().int(), detail: z.string() })),
  }),
});

export const adminFinanceRoutes = createRouter().openapi(integrity, async (c) => {
  const { user_id: userId } = c.req.valid('query');
  const violations = await checkLedgerIntegrity(c.var.deps, userId === undefined ? {} : { userId });
  return ok(c, {
    ok: violations.length === 0,
    checked_at: formatDateTime(new Date()),
    rules: INTEGRITY_RULES.length,
    total: violations.length,
    violations: violations.slice(0, SHOWN),
  });
});
