import { adminActor } from '../../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import { getPlugin, listPlugins, scanPluginFolders } from '../../../domain/plugins/plugin-catalogue.js';
import { installPlugin } from '../../../domain/plugins/plugin-install.js';
import { disablePlugin, enablePlugin, uninstallPlugin, updatePluginConfig } from '../../../domain/plugins/plugin-lifecycle.js';
import { checkPluginHealth } from '../../../domain/plugins/plugin-runtime-logs.js';
import { ErrorCode } from '../../../lib/errors.js';
import { PLUGIN_DOMAINS } from '../../../plugins/runtime/contract.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { pluginDetailResource, pluginDetailSchema, pluginSummaryResource, pluginSummarySchema } from '../../resources/plugins.js';
import { boolQuery, idParam, listQuery } from '../../schemas.js';

const tags = ['管理端：集成插件'];
const base = '/api/v2/admin/integration-plugins';
const view = { surface: 'admin', permission: 'plugin.view' } as const;
const manage = { surface: 'admin', permission: 'plugin.manage' } as const;
/** Writes that carry plugin secrets: step-up (docs/security.md). */
const manageSecrets = { ...manage, stepUp: true } as const;

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '插件列表（含已识别未安装的插件）',
  access: view,
  request: {
    query: listQuery({
      domain: z.enum(PLUGIN_DOMAINS).optional(),
      status: z.enum(['recognised', 'installed', 'enabled', 'disabled']).optional(),
    }),
  },
  data: pageSchema(pluginSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{id}`,
  tags,
  summary: '插件详情（配置表单与当前值，密钥只给 has_value）',
  access: view,
  request: { params: idParam('id') },
  data: pluginDetailSchema,
});

const scan = defineRoute({
  method: 'post',
  path: `${base}/scan`,
  tags,
  summary: '扫描插件目录',
  access: manage,
  data: z.object({
    found: z.number().int(),
    recognised: z.number().int(),
    installed: z.number().int(),
    invalid: z.number().int(),
    list: z.array(z.object({ domain: z.enum(PLUGIN_DOMAINS), slug: z.string(), name: z.string(), error: z.string().nullable() })),
  }),
});

const install = defineRoute({
  method: 'post',
  path: `${base}/{domain}/{slug}/install`,
  tags,
  summary: '安装插件（校验 manifest、入口、配置类型、计划任务与钩子）',
  access: manage,
  request: {
    params: z.object({
      domain: z.enum(PLUGIN_DOMAINS).openapi({ param: { name: 'domain', in: 'path' } }),
      slug: z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: '插件标识只能包含小写字母、数字、下划线和横线' })
        .openapi({ param: { name: 'slug', in: 'path' } }),
    }),
  },
  data: pluginDetailSchema,
  errors: [ErrorCode.CONFLICT],
});

const configure = defineRoute({
  method: 'put',
  path: `${base}/{id}/config`,
  tags,
  summary: '保存插件配置（密钥加密保存，空值保留原密钥）',
  access: manageSecrets,
  request: {
    params: idParam('id'),
    body: {
      required: true,
      content: { 'application/json': { schema: z.object({ config: z.record(z.string(), z.unknown()) }) } },
    },
  },
  data: pluginDetailSchema,
});

const enable = defineRoute({
  method: 'post',
  path: `${base}/{id}/enable`,
  tags,
  summary: '启用插件（必填配置须完整）',
  access: manage,
  request: { params: idParam('id') },
  data: pluginDetailSchema,
  errors: [ErrorCode.CONFLICT],
});

const disable = defineRoute({
  method: 'post',
  path: `${base}/{id}/disable`,
  tags,
  summary: '停用插件（状态变为 disabled）',
  access: manage,
  request: { params: idParam('id') },
  data: pluginDetailSchema,
  errors: [ErrorCode.CONFLICT],
});

const health = defineRoute({
  method: 'post',
  path: `${base}/{id}/health-check`,
  tags,
  summary: '插件健康检查（执行 health_check 动作）',
  access: manage,
  request: { params: idParam('id') },
  data: z.object({
    success: z.boolean(),
    status: z.enum(['success', 'failure', 'timeout']),
    message: z.string(),
    log_id: z.number().int().nullable(),
  }),
});

const uninstall = defineRoute({
  method: 'delete',
  path: `${base}/{id}`,
  tags,
  summary: '卸载插件（不可恢复；被引用时需 force=1）',
  description: '被业务数据引用时返回 40901 并列出引用；force=1 时删除插件绑定、解除其他引用后卸载。插件文件保留。',
  access: manage,
  request: { params: idParam('id'), query: z.object({ force: boolQuery.optional() }) },
  data: z.object({
    id: z.number().int(),
    domain: z.enum(PLUGIN_DOMAINS),
    slug: z.string(),
    detached: z.array(z.object({ name: z.string(), label: z.string(), count: z.number().int() })),
  }),
  errors: [ErrorCode.IN_USE],
});

export const adminPluginRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPlugins(c.var.deps, query);
    return ok(c, page(rows.map(pluginSummaryResource), total, query));
  })
  .openapi(scan, async (c) => ok(c, await scanPluginFolders(c.var.deps), '扫描完成'))
  .openapi(detail, async (c) => ok(c, pluginDetailResource(await getPlugin(c.var.deps, c.req.valid('param').id), c.var.deps.secretBox)))
  .openapi(install, async (c) => {
    const { domain, slug } = c.req.valid('param');
    return ok(c, pluginDetailResource(await installPlugin(c.var.deps, domain, slug), c.var.deps.secretBox), '插件已安装');
  })
  .openapi(configure, async (c) => {
    const plugin = await updatePluginConfig(c.var.deps, c.req.valid('param').id, c.req.valid('json').config);
    return ok(c, pluginDetailResource(plugin, c.var.deps.secretBox), '插件配置已保存');
  })
  .openapi(enable, async (c) =>
    ok(c, pluginDetailResource(await enablePlugin(c.var.deps, c.req.valid('param').id), c.var.deps.secretBox), '插件已启用'),
  )
  .openapi(disable, async (c) =>
    ok(c, pluginDetailResource(await disablePlugin(c.var.deps, c.req.valid('param').id), c.var.deps.secretBox), '插件已停用'),
  )
  .openapi(health, async (c) => {
    const result = await checkPluginHealth(c.var.deps, c.req.valid('param').id, adminActor(c.var.admin), c.var.requestId);
    return ok(c, { success: result.success, status: result.status, message: result.message, log_id: result.logId }, result.message);
  })
  .openapi(uninstall, async (c) => {
    const result = await uninstallPlugin(c.var.deps, c.req.valid('param').id, c.req.valid('query').force ?? false);
    return ok(c, result, '插件已卸载');
  });
