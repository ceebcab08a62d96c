import { z } from '@hono/zod-openapi';
import { TRANSACTION_TYPES } from '../../../db/models/billing.js';
import { getBalance } from '../../../domain/billing/ledger/get-balance.js';
import { findDocument, listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { balanceLogResource, balanceLogSchema } from '../../resources/billing/ledger.js';
import { dateTimeString, idParam, listQuery, moneyString } from '../../schemas.js';

const tags = ['客户端：余额与充值'];

const balance = defineRoute({
  method: 'get',
  path: '/api/v2/client/balance',
  tags,
  summary: '账户余额',
  access: { surface: 'client' },
  data: z.object({ balance: moneyString, currency: z.literal('CNY'), updated_at: dateTimeString.nullable() }),
});

const logs = defineRoute({
  method: 'get',
  path: '/api/v2/client/balance-logs',
  tags,
  summary: '余额明细（账户流水）',
  description: '每一笔余额变动一条，金额带符号，附变动后余额；按类型筛选，新的在前。',
  access: { surface: 'client' },
  request: { query: listQuery({ type: z.enum(TRANSACTION_TYPES).optional() }) },
  data: pageSchema(balanceLogSchema),
});

const log = defineRoute({
  method: 'get',
  path: '/api/v2/client/balance-logs/{id}',
  tags,
  summary: '余额明细详情',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: balanceLogSchema,
});

export const clientBalanceRoutes = createRouter()
  .openapi(balance, async (c) => {
    const found = await getBalance(c.var.deps, c.var.client.id);
    return ok(c, { ...found, updated_at: formatDateTime(found.updated_at) });
  })
  .openapi(logs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.AccountTransaction, { ...query, user_id: c.var.client.id }, ['user_id', 'type']);
    return ok(c, page(rows.map(balanceLogResource), total, query));
  })
  .openapi(log, async (c) => {
    const row = await findDocument(c.var.deps.db.models.AccountTransaction, c.req.valid('param').id, '余额明细', c.var.client.id);
    return ok(c, balanceLogResource(row));
  });
