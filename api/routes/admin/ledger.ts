import { z } from '@hono/zod-openapi';
import { RECHARGE_DIRECTIONS, RECHARGE_SCENES, TRANSACTION_TYPES } from '../../../db/models/billing.js';
import { findDocument, listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { accountTransactionResource, accountTransactionSchema, rechargeRecordResource, rechargeRecordSchema } from '../../resources/billing/ledger.js';
import { idParam, idQuery, listQuery, sortQuery } from '../../schemas.js';

const tags = ['管理端：财务单据'];
const SORT_KEYS = ['id', 'created_at', 'amount'] as const;
const positiveId = idQuery().optional();

const transactions = defineRoute({
  method: 'get',
  path: '/api/v2/admin/account-transactions',
  tags,
  summary: '账户流水（余额变动）',
  description: `每笔余额变动一条，金额带符号，附变动前后余额与连续序号；筛选：user_id、type、invoice_id、payment_id、refund_id；sort 可选 ${SORT_KEYS.join('、')}。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: {
    query: listQuery({
      user_id: positiveId,
      type: z.enum(TRANSACTION_TYPES).optional(),
      invoice_id: positiveId,
      payment_id: positiveId,
      refund_id: positiveId,
      sort: sortQuery(SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(accountTransactionSchema),
});

const transaction = defineRoute({
  method: 'get',
  path: '/api/v2/admin/account-transactions/{transaction}',
  tags,
  summary: '账户流水详情',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('transaction') },
  data: accountTransactionSchema,
});

const records = defineRoute({
  method: 'get',
  path: '/api/v2/admin/recharge-records',
  tags,
  summary: '充值记录',
  description: `第三方实付金额大于 0 时（按账单类型取场景）与后台充值时生成；退款冲减为金额为负、direction=out 的记录。筛选：user_id、scene、direction、invoice_id、payment_id、refund_id、origin_recharge_record_id；sort 可选 ${SORT_KEYS.join('、')}。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: {
    query: listQuery({
      user_id: positiveId,
      scene: z.enum(RECHARGE_SCENES).optional(),
      direction: z.enum(RECHARGE_DIRECTIONS).optional(),
      invoice_id: positiveId,
      payment_id: positiveId,
      refund_id: positiveId,
      origin_recharge_record_id: positiveId,
      sort: sortQuery(SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(rechargeRecordSchema),
});

const record = defineRoute({
  method: 'get',
  path: '/api/v2/admin/recharge-records/{record}',
  tags,
  summary: '充值记录详情',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('record') },
  data: rechargeRecordSchema,
});

export const adminLedgerRoutes = createRouter()
  .openapi(transactions, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.AccountTransaction, query, ['user_id', 'type', 'invoice_id', 'payment_id', 'refund_id']);
    return ok(c, page(rows.map(accountTransactionResource), total, query));
  })
  .openapi(transaction, async (c) =>
    ok(c, accountTransactionResource(await findDocument(c.var.deps.db.models.AccountTransaction, c.req.valid('param').transaction, '账户流水'))),
  )
  .openapi(records, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.RechargeRecord, query, [
      'user_id',
      'scene',
      'direction',
      'invoice_id',
      'payment_id',
      'refund_id',
      'origin_recharge_record_id',
    ]);
    return ok(c, page(rows.map(rechargeRecordResource), total, query));
  })
  .openapi(record, async (c) => ok(c, rechargeRecordResource(await findDocument(c.var.deps.db.models.RechargeRecord, c.req.valid('param').record, '充值记录'))));
