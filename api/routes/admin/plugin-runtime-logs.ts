import { z } from '@hono/zod-openapi';
import { getPluginRuntimeLog, listPluginRuntimeLogs } from '../../../domain/plugins/plugin-runtime-logs.js';
import { PLUGIN_RUN_STATUSES } from '../../../db/models/plugin-runtime-log.js';
import { PLUGIN_DOMAINS } from '../../../plugins/runtime/contract.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { runtimeLogDetailResource, runtimeLogDetailSchema, runtimeLogResource, runtimeLogSchema } from '../../resources/plugins.js';
import { idParam, idQuery, LOG_LIST_NOTE, logListQuery } from '../../schemas.js';

const tags = ['管理端：集成插件'];
const base = '/api/v2/admin/integration-plugins/runtime-logs';

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '插件运行日志',
  description: `每次插件动作一条：领域、插件、绑定、操作者、耗时、状态与脱敏摘要（列表只给摘录）。按时间倒序，按月分区。${LOG_LIST_NOTE}`,
  access: { surface: 'admin', permission: 'plugin.view' },
  request: {
    query: logListQuery({
      domain: z.enum(PLUGIN_DOMAINS).optional(),
      plugin_id: idQuery().optional(),
      status: z.enum(PLUGIN_RUN_STATUSES).optional(),
      action: z.string().min(1).max(128).optional(),
    }),
  },
  data: pageSchema(runtimeLogSchema),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{log}`,
  tags,
  summary: '插件运行日志详情（脱敏的请求、响应摘要与错误详情）',
  access: { surface: 'admin', permission: 'plugin.view' },
  request: { params: idParam('log') },
  data: runtimeLogDetailSchema,
});

export const adminPluginRuntimeLogRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPluginRuntimeLogs(c.var.deps, query);
    return ok(c, page(rows.map(runtimeLogResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, runtimeLogDetailResource(await getPluginRuntimeLog(c.var.deps, c.req.valid('param').log))));
