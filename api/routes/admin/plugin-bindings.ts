import { z } from '@hono/zod-openapi';
import { createPluginBinding, deletePluginBinding, listPluginBindings } from '../../../domain/plugins/plugin-bindings.js';
import { PLUGIN_BINDING_TYPES } from '../../../db/models/plugin-binding.js';
import { ErrorCode } from '../../../lib/errors.js';
import { PLUGIN_DOMAINS } from '../../../plugins/runtime/contract.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { pluginBindingResource, pluginBindingSchema } from '../../resources/plugins.js';
import { idInput, idParam, idQuery, listQuery } from '../../schemas.js';

const tags = ['管理端：集成插件'];
const base = '/api/v2/admin/integration-plugins/bindings';
const scene = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { error: '场景只能包含小写字母、数字和下划线，以字母开头' });

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '插件绑定列表',
  access: { surface: 'admin', permission: 'plugin.view' },
  request: {
    query: listQuery({
      domain: z.enum(PLUGIN_DOMAINS).optional(),
      binding_type: z.enum(PLUGIN_BINDING_TYPES).optional(),
      plugin_id: idQuery().optional(),
      scene: scene.optional(),
    }),
  },
  data: pageSchema(pluginBindingSchema),
});

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建插件绑定（场景默认、供应商、商品上游、服务上游）',
  description: 'binding_type=default 时按 scene（默认 default）设为该领域的场景默认插件，每个领域每个场景只有一个；其余类型需要 binding_id。只能绑定已启用的插件。',
  access: { surface: 'admin', permission: 'plugin.manage' },
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({
            plugin_id: idInput(),
            binding_type: z.enum(PLUGIN_BINDING_TYPES),
            scene: scene.optional(),
            binding_id: idInput().optional(),
          }),
        },
      },
    },
  },
  data: pluginBindingSchema,
  errors: [ErrorCode.CONFLICT, ErrorCode.NOT_FOUND],
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{binding}`,
  tags,
  summary: '删除插件绑定',
  access: { surface: 'admin', permission: 'plugin.manage' },
  request: { params: idParam('binding') },
  data: z.null(),
});

export const adminPluginBindingRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPluginBindings(c.var.deps, query);
    return ok(c, page(rows.map(pluginBindingResource), total, query));
  })
  .openapi(create, async (c) => ok(c, pluginBindingResource(await createPluginBinding(c.var.deps, c.req.valid('json'))), '插件绑定已创建'))
  .openapi(remove, async (c) => {
    await deletePluginBinding(c.var.deps, c.req.valid('param').binding);
    return ok(c, null, '插件绑定已删除');
  });
