import { z } from '@hono/zod-openapi';
import { SECURITY_RULE_ACTIONS, SECURITY_RULE_DIRECTIONS, SECURITY_RULE_PROTOCOLS } from '../../../db/models/security-group.js';
import { CONSOLE_ACTION_LIMITS } from '../../../domain/services/console/action-limit.js';
import {
  addSecurityRule,
  createSecurityGroup,
  deleteSecurityGroup,
  getSecurityGroup,
  listSecurityGroups,
  removeSecurityRule,
  SECURITY_GROUP_LIMITS,
} from '../../../domain/services/console/security-groups.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { securityGroupResource, securityGroupSchema, securityGroupSummaryResource, securityGroupSummarySchema, securityRuleResource, securityRuleSchema } from '../../resources/security-groups.js';
import { idParam, jsonBody, listQuery } from '../../schemas.js';

const tags = ['客户端：安全组'];
const SYNC_RULES =
  `安全组保存在本平台、属于创建它的用户；关联到服务时逐条推送到该服务的上游主机（上游自定义模块），规则变更同步到所有已关联的服务，任一主机失败则整体回滚并返回上游的中文错误（40930 拒绝，50300 不可用）。` +
  `关联的服务须处于可操作状态（40943/40944/40947）。他人的安全组、规则或服务一律 40400。每个用户每分钟最多 ${CONSOLE_ACTION_LIMITS.security.perMinute} 次安全组操作（默认值，可在系统设置 console.security_per_minute 调整；超出 42900）。`;

export const securityRuleInput = z.object({
  direction: z.enum(SECURITY_RULE_DIRECTIONS, { error: 'direction 只能是 in（入站）或 out（出站）' }),
  protocol: z.enum(SECURITY_RULE_PROTOCOLS, { error: 'protocol 只能是 tcp、udp、icmp 或 all' }),
  port_range: z.string({ error: '端口范围必须是字符串，例如 22 或 1000-2000' }).max(11, { error: '端口范围格式不正确' }).optional(),
  cidr: z.string({ error: '请填写 CIDR，例如 0.0.0.0/0' }).min(1, { error: '请填写 CIDR，例如 0.0.0.0/0' }).max(49, { error: 'CIDR 格式不正确' }),
  action: z.enum(SECURITY_RULE_ACTIONS, { error: 'action 只能是 allow（允许）或 deny（拒绝）' }),
  description: z.string({ error: '备注必须是字符串' }).max(255, { error: '备注最多 255 个字符' }).optional(),
});

const groupName = z
  .string({ error: '请填写安全组名称' })
  .trim()
  .min(1, { error: '请填写安全组名称' })
  .max(64, { error: '安全组名称最多 64 个字符' });

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/security-groups',
  tags,
  summary: '我的安全组列表',
  description: '当前用户的安全组（规则数与已关联的服务编号；规则见详情），按编号升序。',
  access: { surface: 'client' },
  request: { query: listQuery({}) },
  data: pageSchema(securityGroupSummarySchema),
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/security-groups',
  tags,
  summary: '创建安全组',
  description: `名称在本用户内唯一（40900）；可同时带上规则（最多 ${SECURITY_GROUP_LIMITS.rulesPerGroup} 条）。每个用户最多 ${SECURITY_GROUP_LIMITS.groupsPerUser} 个安全组（40950）。创建时不请求上游。`,
  access: { surface: 'client', tokenScope: 'console' },
  request: {
    ...jsonBody(
      z.object({
        name: groupName,
        description: z.string({ error: '描述必须是字符串' }).max(255, { error: '描述最多 255 个字符' }).optional(),
        rules: z.array(securityRuleInput, { error: 'rules 必须是数组' }).max(SECURITY_GROUP_LIMITS.rulesPerGroup, { error: `每个安全组最多 ${SECURITY_GROUP_LIMITS.rulesPerGroup} 条规则` }).optional(),
      }),
    ),
  },
  data: securityGroupSchema,
  errors: [ErrorCode.CONFLICT, ErrorCode.CONSOLE_LIMIT_REACHED, ErrorCode.TOO_MANY_REQUESTS],
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/client/security-groups/{id}',
  tags,
  summary: '安全组详情',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: securityGroupSchema,
});

const remove = defineRoute({
  method: 'delete',
  path: '/api/v2/client/security-groups/{id}',
  tags,
  summary: '删除安全组',
  description: '仍关联着服务的安全组不能删除（40901），请先解除关联。',
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id') },
  data: z.object({ id: z.number().int(), deleted: z.boolean() }),
  errors: [ErrorCode.IN_USE, ErrorCode.TOO_MANY_REQUESTS],
});

const addRule = defineRoute({
  method: 'post',
  path: '/api/v2/client/security-groups/{id}/rules',
  tags,
  summary: '添加安全组规则',
  description: `direction（in/out）、protocol（tcp/udp/icmp/all）、port_range（tcp/udp 必填：端口或范围，如 22、1000-2000）、cidr（IPv4 或 IPv6 地址段）、action（allow/deny）。每个安全组最多 ${SECURITY_GROUP_LIMITS.rulesPerGroup} 条（40950）。${SYNC_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id'), ...jsonBody(securityRuleInput) },
  data: securityRuleSchema,
  errors: [ErrorCode.CONSOLE_LIMIT_REACHED, ErrorCode.SERVICE_CONSOLE_READ_ONLY, ErrorCode.SERVICE_NOT_ACTIVE, ErrorCode.SERVICE_ACTION_UNSUPPORTED, ErrorCode.SUPPLIER_REFUSED, ErrorCode.DEPENDENCY_UNAVAILABLE, ErrorCode.TOO_MANY_REQUESTS],
});

const removeRule = defineRoute({
  method: 'delete',
  path: '/api/v2/client/security-groups/{id}/rules/{rule}',
  tags,
  summary: '删除安全组规则',
  description: `先从所有已关联服务的上游主机删除该规则，再删除本地规则；上游失败时规则保留（可重试）。${SYNC_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id').extend(idParam('rule').shape) },
  data: z.object({ group_id: z.number().int(), rule_id: z.number().int(), deleted: z.boolean() }),
  errors: [ErrorCode.SERVICE_CONSOLE_READ_ONLY, ErrorCode.SERVICE_NOT_ACTIVE, ErrorCode.SERVICE_ACTION_UNSUPPORTED, ErrorCode.SUPPLIER_REFUSED, ErrorCode.DEPENDENCY_UNAVAILABLE, ErrorCode.TOO_MANY_REQUESTS],
});

export const clientSecurityGroupRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listSecurityGroups(c.var.deps, { userId: c.var.client.id, page: query.page, pageSize: query.page_size });
    return ok(c, page(rows.map(securityGroupSummaryResource), total, query));
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    const group = await createSecurityGroup(c.var.deps, { userId: c.var.client.id, name: body.name, description: body.description, rules: body.rules });
    return ok(c, securityGroupResource(group), '安全组已创建');
  })
  .openapi(detail, async (c) => {
    return ok(c, securityGroupResource(await getSecurityGroup(c.var.deps, { userId: c.var.client.id, groupId: c.req.valid('param').id })));
  })
  .openapi(remove, async (c) => {
    return ok(c, await deleteSecurityGroup(c.var.deps, { userId: c.var.client.id, groupId: c.req.valid('param').id }), '安全组已删除');
  })
  .openapi(addRule, async (c) => {
    const rule = await addSecurityRule(c.var.deps, { userId: c.var.client.id, groupId: c.req.valid('param').id, rule: c.req.valid('json') });
    return ok(c, securityRuleResource(rule), '规则已添加');
  })
  .openapi(removeRule, async (c) => {
    const params = c.req.valid('param');
    return ok(c, await removeSecurityRule(c.var.deps, { userId: c.var.client.id, groupId: params.id, ruleId: params.rule }), '规则已删除');
  });
