import { z } from '@hono/zod-openapi';
import { AUDIT_SOURCES, type AuditDetailRow, type AuditSummaryRow, getAuditLog, listAuditLogs } from '../../../domain/logs/admin-audit.js';
import { AUDIT_CHAIN_BREAKS, verifyAuditChain } from '../../../domain/logs/audit-chain.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { boolQuery, dateQuery, dateTimeString, idParam, idQuery, LOG_LIST_NOTE, logListQuery } from '../../schemas.js';

const tags = ['管理端：审计'];
const access = { surface: 'admin', permission: 'audit.view' } as const;

const auditSummarySchema = z
  .object({
    id: z.number().int(),
    source: z.enum(AUDIT_SOURCES).openapi({ description: 'request：一次后台写操作（接口层统一记录）；catalogue：商品目录的字段变更（随变更在同一事务写入）' }),
    admin_id: z.number().int().nullable(),
    admin_name: z.string(),
    method: z.string().nullable(),
    route: z.string().nullable().openapi({ description: '路由模板（如 /api/v2/admin/users/{user}/disable），不含具体路径' }),
    status: z.number().int().nullable().openapi({ description: 'HTTP 状态；失败的尝试同样记录' }),
    code: z.number().int().nullable().openapi({ description: '响应信封的业务码' }),
    target_type: z.string().nullable(),
    target_id: z.string().nullable(),
    action: z.string(),
    request_id: z.string().nullable(),
    ip: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('AdminAuditLog');

const auditDetailSchema = auditSummarySchema
  .extend({
    user_agent: z.string(),
    request: z.string().nullable().openapi({ description: '请求参数（路径、查询、请求体）的 JSON 文本，已脱敏：密码、密钥、令牌、验证码与证件号不保留' }),
    before: z.string().nullable().openapi({ description: '变更前（业务提供时）的 JSON 文本，已脱敏' }),
    after: z.string().nullable().openapi({ description: '变更后（成功响应的数据）的 JSON 文本，已脱敏' }),
    changes: z.string().nullable().openapi({ description: '字段新旧值（商品目录记录）的 JSON 文本' }),
  })
  .openapi('AdminAuditLogDetail');

function summary(row: AuditSummaryRow) {
  return {
    id: row.id,
    source: row.source,
    admin_id: row.admin_id,
    admin_name: row.admin_name,
    method: row.method,
    route: row.route,
    status: row.status,
    code: row.code,
    target_type: row.target_type,
    target_id: row.target_id,
    action: row.action,
    request_id: row.request_id,
    ip: row.ip,
    created_at: formatDateTime(row.created_at),
  };
}

function detail(row: AuditDetailRow) {
  // JSON text, as the catalogue audit shows complex values: an answer never nests deeper than its resource.
  const text = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  return { ...summary(row), user_agent: row.user_agent, request: text(row.request), before: text(row.before), after: text(row.after), changes: text(row.changes) };
}

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/audit-logs',
  tags,
  summary: '管理员操作审计',
  description:
    '每一次后台写操作（非 GET 的管理端接口，含被拒绝的尝试）一行：谁、何时、从哪个地址、调用了哪个路由、作用对象、结果，以及商品目录的字段变更。记录只增不改：数据库拒绝修改与删除，任何管理员都不能清理。按编号倒序。' + LOG_LIST_NOTE,
  access,
  request: {
    query: logListQuery({
      source: z.enum(AUDIT_SOURCES).optional(),
      admin_id: idQuery().optional(),
      method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']).optional(),
      route: z.string().max(255).optional(),
      target_type: z.string().max(32).optional(),
      target_id: z.string().max(64).optional(),
      request_id: z.string().max(64).optional(),
      failed: boolQuery.optional(),
      date_from: dateQuery.optional(),
      date_to: dateQuery.optional(),
    }),
  },
  data: pageSchema(auditSummarySchema),
});

const chainReportSchema = z
  .object({
    intact: z.boolean().openapi({ description: '整条链完整（没有被修改或删除的记录）' }),
    checked: z.number().int().openapi({ description: '已校验的记录数（从第一条到链头）' }),
    head: z.object({
      chain_seq: z.number().int().openapi({ description: '链头序号（最新一条记录的 chain_seq）' }),
      row_hash: z.string().openapi({ description: '链头哈希（sha256，十六进制）；每日校验任务把它写入系统日志，供以后核对' }),
    }),
    first_break: z
      .object({
        kind: z.enum(AUDIT_CHAIN_BREAKS).openapi({
          description: 'edited：记录写入后被修改；missing_before：它之前的记录被删除；relinked：前一条记录被修改后重算了哈希或被替换；missing_after：链尾的记录被删除',
        }),
        id: z.number().int().nullable().openapi({ description: '断裂处的记录编号（missing_after 时为空）' }),
        chain_seq: z.number().int(),
        message: z.string(),
      })
      .nullable()
      .openapi({ description: '第一处断裂；链完整时为空' }),
  })
  .openapi('AdminAuditChainReport');

const verify = defineRoute({
  method: 'get',
  path: '/api/v2/admin/audit-logs/verify',
  tags,
  summary: '校验审计哈希链',
  description:
    '全量校验：每条审计记录带有与前一条相连的哈希（数据库在写入时计算，按提交顺序成链）。本接口从第一条到当前链头逐页重新计算并核对（耗时随记录数增长，按需调用），报告第一处断裂：在数据库中被手工修改或删除的记录会被发现。每日校验任务只核对上次检查点之后的记录（检查点之前被修改的记录只有本接口能发现）。局限：能关闭触发器并重写从断裂处到链头全部记录的人可以掩盖修改；每日校验任务（audit.verify-chain）把链头哈希记入系统日志，之后的重写可与这些记录对照发现。',
  access,
  data: chainReportSchema,
});

const get = defineRoute({
  method: 'get',
  path: '/api/v2/admin/audit-logs/{id}',
  tags,
  summary: '审计记录详情（已脱敏的请求参数、变更前后）',
  access,
  request: { params: idParam('id') },
  data: auditDetailSchema,
});

export const adminAuditLogRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listAuditLogs(c.var.deps, query);
    return ok(c, page(rows.map(summary), total, query));
  })
  .openapi(verify, async (c) => ok(c, await verifyAuditChain(c.var.deps)))
  .openapi(get, async (c) => ok(c, detail(await getAuditLog(c.var.deps, c.req.valid('param').id))));
