import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { SERVICE_STATUSES } from '../../../db/models/service.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { withResolvedConsole } from '../../../domain/services/console/resolve-capabilities.js';
import { findServiceView } from '../../../domain/services/find-service.js';
import { listServices, SERVICE_SORT_KEYS } from '../../../domain/services/list-services.js';
import { PASSWORD_REVEALS_PER_HOUR, revealServicePassword } from '../../../domain/services/reveal-password.js';
import { setAutoRenew } from '../../../domain/services/set-auto-renew.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { serviceDetailResource, serviceDetailSchema, serviceSummaryResource, serviceSummarySchema } from '../../resources/services.js';
import { idParam, jsonBody, listQuery, sortQuery } from '../../schemas.js';

const tags = ['客户端：服务'];

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/services',
  tags,
  summary: '我的服务',
  description: `按 status、product_type 筛选；sort 可选 ${SERVICE_SORT_KEYS.join('、')}（前缀 - 倒序），默认 -id。`,
  access: { surface: 'client' },
  request: {
    query: listQuery({
      status: z.enum(SERVICE_STATUSES).optional(),
      product_type: z.enum(PRODUCT_TYPES).optional(),
      sort: sortQuery(SERVICE_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(serviceSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}',
  tags,
  summary: '服务详情',
  description: [
    '包含规范“服务实例”表的全部字段：下单时的类型快照（历史值归一到 8 种类型）、console_template、真实的 provider_key 与 plugin_key、capabilities、upstream.host_id（无上游绑定为 0，此时控制台只读、所有 actions 为 false）、actions.power、actions.module_status、has_password（密码只能通过单独的查看操作获取）。',
    'capabilities 取值：runtime（实时状态）、power、vnc、reinstall、reset_password、traffic_packages、network（NAT 端口转发）、security（安全组）、monitoring（监控）；为商品类型的控制台能力与绑定插件声明能力的交集；other 类型在详情中为插件通过 server.resolve_capability 实时给出的能力（列表中为插件声明的上限）。',
  ].join('\n\n'),
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: serviceDetailSchema,
});

const autoRenew = defineRoute({
  method: 'put',
  path: '/api/v2/client/services/{id}/auto-renew',
  tags,
  summary: '自动续费开关',
  description: '开启后由计划任务在到期前生成续费账单并从余额扣款；只在本平台生效，从不开启或同步上游的自动续费。一次性付费或已结束的服务不能开启（40942），关闭总是可以。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id'), ...jsonBody(z.object({ enabled: z.boolean({ error: 'enabled 必须是布尔值' }) })) },
  data: z.object({ service_id: z.number().int(), auto_renew: z.boolean() }),
  errors: [ErrorCode.SERVICE_NOT_RENEWABLE],
});

const reveal = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/password/reveal',
  tags,
  summary: '查看服务密码（记录日志）',
  description: `密码只通过此操作返回：优先返回本平台保存的密码（购买、重装或重置时设置），否则向上游读取。每次查看都写入服务记录（用户与来源地址）；同一服务每小时最多 ${PASSWORD_REVEALS_PER_HOUR} 次，超过答 42900。`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id') },
  data: z.object({ service_id: z.number().int(), username: z.string(), password: z.string(), source: z.enum(['local', 'upstream']) }),
  errors: [ErrorCode.TOO_MANY_REQUESTS, ErrorCode.SUPPLIER_REFUSED, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

export const clientServiceRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listServices(c.var.deps, { ...query, user_id: c.var.client.id });
    return ok(c, page(rows.map(serviceSummaryResource), total, query));
  })
  .openapi(detail, async (c) => {
    const view = await findServiceView(c.var.deps, c.req.valid('param').id, c.var.client.id);
    return ok(c, serviceDetailResource(await withResolvedConsole(c.var.deps, view, c.var.client.id)));
  })
  .openapi(autoRenew, async (c) => {
    const result = await setAutoRenew(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, enabled: c.req.valid('json').enabled });
    return ok(c, result, result.auto_renew ? '已开启自动续费' : '已关闭自动续费');
  })
  .openapi(reveal, async (c) => {
    const result = await revealServicePassword(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, ip: requestMeta(c).ip });
    return ok(c, result, '请妥善保管密码，本次查看已记录');
  });
