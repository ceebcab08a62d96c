import { z } from '@hono/zod-openapi';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { SERVICE_STATUSES } from '../../../db/models/service.js';
import { CONSOLE_CAPABILITIES } from '../../../domain/services/capabilities.js';
import { CONSOLE_ACTION_LIMITS } from '../../../domain/services/console/action-limit.js';
import { readServiceConsole } from '../../../domain/services/console/console-view.js';
import { MONITORING_LIMIT, MONITORING_METRICS, MONITORING_RANGE, readServiceMonitoring } from '../../../domain/services/console/monitoring.js';
import { addNatRule, deleteNatRule, listNatRules, NAT_PROTOCOLS, readNatLimits } from '../../../domain/services/console/nat-rules.js';
import { GROUPS_PER_SERVICE, linkSecurityGroup, listServiceSecurityGroups, unlinkSecurityGroup } from '../../../domain/services/console/security-links.js';
import { ErrorCode } from '../../../lib/errors.js';
import { parseDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { securityGroupSummaryResource, securityGroupSummarySchema } from '../../resources/security-groups.js';
import { dateTimeString, idInput, idParam, jsonBody, listQuery } from '../../schemas.js';

const tags = ['客户端：服务控制台'];
const CONSOLE_ERRORS = [
  ErrorCode.SERVICE_CONSOLE_READ_ONLY,
  ErrorCode.SERVICE_NOT_ACTIVE,
  ErrorCode.SERVICE_ACTION_UNSUPPORTED,
  ErrorCode.SUPPLIER_REFUSED,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.TOO_MANY_REQUESTS,
];
const rules = (capability: string, scope: keyof typeof CONSOLE_ACTION_LIMITS) =>
  `需要上游绑定（否则控制台只读，40943）、服务运行中（40944）且服务具备 ${capability} 能力（40947）；上游拒绝 40930，上游不可用 50300。每个用户每分钟最多 ${CONSOLE_ACTION_LIMITS[scope].perMinute} 次（默认值，可在系统设置 console.${CONSOLE_ACTION_LIMITS[scope].setting} 调整；超出 42900）。`;

const port = (label: string) =>
  z
    .number({ error: `${label}必须是 1 到 65535 之间的整数` })
    .int({ error: `${label}必须是 1 到 65535 之间的整数` })
    .min(1, { error: `${label}必须是 1 到 65535 之间的整数` })
    .max(65535, { error: `${label}必须是 1 到 65535 之间的整数` })
    .openapi({ type: 'integer', minimum: 1, maximum: 65535 });

const natRuleSchema = z
  .object({
    id: z.number().int(),
    protocol: z.enum(NAT_PROTOCOLS),
    external_port: z.number().int().openapi({ description: '外网端口（上游 NAT 网关）' }),
    internal_port: z.number().int().openapi({ description: '主机内网端口' }),
  })
  .openapi('NatRule');

const natList = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/nat-rules',
  tags,
  summary: 'NAT 端口转发规则列表',
  description: `实时读取上游主机的端口转发规则（本平台不保存），按上游的顺序分页（page、page_size）。上游的限制（规则上限、外网端口范围）见 GET /api/v2/client/services/{id}/nat-rules/limits。${rules('network', 'network')}`,
  access: { surface: 'client' },
  request: { params: idParam('id'), query: listQuery({}) },
  data: pageSchema(natRuleSchema),
  errors: CONSOLE_ERRORS,
});

const natLimits = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/nat-rules/limits',
  tags,
  summary: 'NAT 端口转发的上游限制',
  description: `实时读取上游：max_rules（每台主机规则上限）、external_port_min / external_port_max（可用外网端口范围），上游未提供时为 null；rule_count 为主机当前的规则数。${rules('network', 'network')}`,
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: z
    .object({
      service_id: z.number().int(),
      rule_count: z.number().int(),
      max_rules: z.number().int().nullable(),
      external_port_min: z.number().int().nullable(),
      external_port_max: z.number().int().nullable(),
    })
    .openapi('NatLimits'),
  errors: CONSOLE_ERRORS,
});

const natAdd = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/nat-rules',
  tags,
  summary: '添加 NAT 端口转发规则',
  description:
    `protocol：tcp 或 udp；internal_port：主机端口；external_port 可选，不填由上游分配。先按上游限制检查：规则已达上限 40950，外网端口超出范围 42200，端口已被该主机的规则使用 40951（上游报告端口被占用同样为 40951），不通过时不请求上游。` +
    `成功或失败都写入服务记录。${rules('network', 'network')}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: {
    params: idParam('id'),
    ...jsonBody(
      z.object({
        protocol: z.enum(NAT_PROTOCOLS, { error: 'protocol 只能是 tcp 或 udp' }),
        internal_port: port('内网端口'),
        external_port: port('外网端口').optional(),
      }),
    ),
  },
  data: z.object({ service_id: z.number().int(), rule: natRuleSchema }),
  errors: [...CONSOLE_ERRORS, ErrorCode.CONSOLE_LIMIT_REACHED, ErrorCode.PORT_TAKEN],
});

const natDelete = defineRoute({
  method: 'delete',
  path: '/api/v2/client/services/{id}/nat-rules/{rule}',
  tags,
  summary: '删除 NAT 端口转发规则',
  description: `规则必须属于该服务的主机（先实时读取上游核对），否则 40400 且不请求上游。${rules('network', 'network')}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id').extend(idParam('rule').shape) },
  data: z.object({ service_id: z.number().int(), rule_id: z.number().int(), deleted: z.boolean() }),
  errors: CONSOLE_ERRORS,
});

const serviceGroups = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/security-groups',
  tags,
  summary: '服务已关联的安全组',
  description: `本平台记录的关联，按安全组编号排序分页（规则见安全组详情）。${rules('security', 'security')}`,
  access: { surface: 'client' },
  request: { params: idParam('id'), query: listQuery({}) },
  data: pageSchema(securityGroupSummarySchema),
  errors: CONSOLE_ERRORS,
});

const link = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/security-groups',
  tags,
  summary: '为服务关联安全组',
  description:
    `group_id 为当前用户自己的安全组（他人的为 40400）。关联后逐条把规则推送到上游主机；任一条失败则撤回已推送的规则、不保留关联，并返回上游的中文错误。已关联 40900；每个服务最多 ${GROUPS_PER_SERVICE} 个安全组（40950）；上游规则数达上限 40950。` +
    rules('security', 'security'),
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id'), ...jsonBody(z.object({ group_id: idInput('请选择安全组') })) },
  data: z.object({ service_id: z.number().int(), group_id: z.number().int(), linked: z.boolean(), rules_pushed: z.number().int() }),
  errors: [...CONSOLE_ERRORS, ErrorCode.CONFLICT, ErrorCode.CONSOLE_LIMIT_REACHED],
});

const unlink = defineRoute({
  method: 'delete',
  path: '/api/v2/client/services/{id}/security-groups/{group}',
  tags,
  summary: '解除服务与安全组的关联',
  description: `从上游主机逐条删除该安全组推送过的规则，然后解除关联；上游失败时保留关联（可重试）。未关联为 40400。${rules('security', 'security')}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id').extend(idParam('group').shape) },
  data: z.object({ service_id: z.number().int(), group_id: z.number().int(), linked: z.boolean() }),
  errors: CONSOLE_ERRORS,
});

const dateTimeQuery = (field: string) =>
  z
    .string({ error: `${field}格式为 YYYY-MM-DD HH:mm:ss` })
    .max(19, { error: `${field}格式为 YYYY-MM-DD HH:mm:ss` })
    .transform((value, ctx) => {
      const parsed = parseDateTime(value);
      if (!parsed) {
        ctx.addIssue({ code: 'custom', message: `${field}格式为 YYYY-MM-DD HH:mm:ss（北京时间）` });
        return z.NEVER;
      }
      return parsed;
    })
    .openapi({ type: 'string', example: '2026-01-01 08:00:00' });

const limitQuery = z
  .string({ error: `limit 必须是 1 到 ${MONITORING_LIMIT.max} 之间的整数` })
  .regex(/^[1-9][0-9]{0,3}$/, { error: `limit 必须是 1 到 ${MONITORING_LIMIT.max} 之间的整数` })
  .transform(Number)
  .pipe(z.number().max(MONITORING_LIMIT.max, { error: `limit 必须是 1 到 ${MONITORING_LIMIT.max} 之间的整数` }))
  .openapi({ type: 'integer', minimum: 1, maximum: MONITORING_LIMIT.max, default: MONITORING_LIMIT.default, description: '数据点数（业务参数，非分页）' });

const monitoring = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/monitoring',
  tags,
  summary: '服务监控数据',
  description:
    `metric：cpu（CPU 使用率 %）、memory（内存使用率 %）、disk_read / disk_write（磁盘读写）、bandwidth_in / bandwidth_out（入网 / 出网带宽）。from、to 为北京时间（YYYY-MM-DD HH:mm:ss），默认最近 ${MONITORING_RANGE.defaultHours} 小时，范围最多 ${MONITORING_RANGE.maxDays} 天；` +
    `limit 为数据点数（1 到 ${MONITORING_LIMIT.max}，默认 ${MONITORING_LIMIT.default}），是规范中唯一允许的 limit 业务参数。从不返回服务开通（activated_at）之前的数据点：同一台主机此前的使用者的数据不会出现。实时读取上游，不写入服务记录。${rules('monitoring', 'monitoring')}`,
  access: { surface: 'client' },
  request: {
    params: idParam('id'),
    query: z.object({
      metric: z.enum(MONITORING_METRICS, { error: `metric 只能是 ${MONITORING_METRICS.join('、')}` }),
      from: dateTimeQuery('开始时间').optional(),
      to: dateTimeQuery('结束时间').optional(),
      limit: limitQuery.optional(),
    }),
  },
  data: z.object({
    service_id: z.number().int(),
    metric: z.enum(MONITORING_METRICS),
    metric_label: z.string(),
    unit: z.string(),
    from: dateTimeString,
    to: dateTimeString,
    limit: z.number().int(),
    activated_at: dateTimeString.nullable(),
    points: z.array(z.object({ time: dateTimeString, value: z.number() })),
  }),
  errors: CONSOLE_ERRORS,
});

const consoleView = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/console',
  tags,
  summary: '服务控制台布局',
  description:
    '控制台模板与按钮。other 类型：插件 console_schema 的 template、sections，以及 actions 中 capability 属于插件当前通过 server.resolve_capability 给出的能力的那些按钮；upstream_status_label 来自插件的 status_mapping。' +
    '其他类型：类型模板与能力，sections、actions 为空。capabilities_resolved 为 false 表示插件暂时无法给出能力（此时没有可用按钮）。插件未提供的操作一律 40947。',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: z.object({
    service_id: z.number().int(),
    product_type: z.enum(PRODUCT_TYPES),
    template: z.string().nullable(),
    sections: z.array(z.record(z.string(), z.unknown())),
    actions: z.array(z.record(z.string(), z.unknown())),
    capabilities: z.array(z.enum(CONSOLE_CAPABILITIES)),
    capabilities_resolved: z.boolean(),
    read_only: z.boolean(),
    status: z.enum(SERVICE_STATUSES),
    status_label: z.string(),
    upstream_status: z.string(),
    upstream_status_label: z.string().nullable(),
  }),
});

export const clientServiceNetworkRoutes = createRouter()
  .openapi(natList, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listNatRules(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, page: query.page, page_size: query.page_size });
    return ok(c, page(rows, total, query));
  })
  .openapi(natLimits, async (c) => ok(c, await readNatLimits(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id })))
  .openapi(natAdd, async (c) => {
    const body = c.req.valid('json');
    const result = await addNatRule(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, protocol: body.protocol, internalPort: body.internal_port, externalPort: body.external_port });
    return ok(c, result, '端口转发规则已添加');
  })
  .openapi(natDelete, async (c) => {
    const params = c.req.valid('param');
    return ok(c, await deleteNatRule(c.var.deps, { serviceId: params.id, userId: c.var.client.id, ruleId: params.rule }), '端口转发规则已删除');
  })
  .openapi(serviceGroups, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listServiceSecurityGroups(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, page: query.page, page_size: query.page_size });
    return ok(c, page(rows.map(securityGroupSummaryResource), total, query));
  })
  .openapi(link, async (c) => {
    const result = await linkSecurityGroup(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, groupId: c.req.valid('json').group_id });
    return ok(c, result, '安全组已关联');
  })
  .openapi(unlink, async (c) => {
    const params = c.req.valid('param');
    return ok(c, await unlinkSecurityGroup(c.var.deps, { serviceId: params.id, userId: c.var.client.id, groupId: params.group }), '已解除关联');
  })
  .openapi(monitoring, async (c) => {
    const query = c.req.valid('query');
    const result = await readServiceMonitoring(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, metric: query.metric, from: query.from, to: query.to, limit: query.limit });
    return ok(c, result);
  })
  .openapi(consoleView, async (c) => {
    return ok(c, await readServiceConsole(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id }));
  });
