import { z } from '@hono/zod-openapi';
import { SECURITY_RULE_ACTIONS, SECURITY_RULE_DIRECTIONS, SECURITY_RULE_PROTOCOLS, type SecurityGroupRuleRow } from '../../db/models/security-group.js';
import type { SecurityGroupView } from '../../domain/services/console/security-group-views.js';
import { formatDateTime } from '../../lib/time.js';
import { dateTimeString } from '../schemas.js';

export const securityRuleSchema = z
  .object({
    id: z.number().int(),
    group_id: z.number().int(),
    direction: z.enum(SECURITY_RULE_DIRECTIONS).openapi({ description: 'in 入站，out 出站' }),
    protocol: z.enum(SECURITY_RULE_PROTOCOLS),
    port_range: z.string().openapi({ description: '端口或范围，如 22、1000-2000；icmp/all 为 1-65535' }),
    cidr: z.string().openapi({ description: '来源（入站）或目标（出站）地址段，如 0.0.0.0/0' }),
    action: z.enum(SECURITY_RULE_ACTIONS).openapi({ description: 'allow 允许，deny 拒绝' }),
    description: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('SecurityGroupRule');

export function securityRuleResource(rule: SecurityGroupRuleRow) {
  return {
    id: rule.id,
    group_id: rule.group_id,
    direction: rule.direction,
    protocol: rule.protocol,
    port_range: rule.port_from === rule.port_to ? String(rule.port_from) : `${rule.port_from}-${rule.port_to}`,
    cidr: rule.cidr,
    action: rule.action,
    description: rule.description,
    created_at: formatDateTime(rule.created_at),
  };
}

/** A group in a list: its rules counted, not listed (the answer stays three levels deep). */
export const securityGroupSummarySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    rule_count: z.number().int(),
    service_ids: z.array(z.number().int()).openapi({ description: '已关联的服务编号' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('SecurityGroupSummary');

export function securityGroupSummaryResource(group: SecurityGroupView) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    rule_count: group.rules.length,
    service_ids: group.service_ids,
    created_at: formatDateTime(group.created_at),
  };
}

export const securityGroupSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    rules: z.array(securityRuleSchema),
    service_ids: z.array(z.number().int()).openapi({ description: '已关联的服务编号' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('SecurityGroup');

export function securityGroupResource(group: SecurityGroupView) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    rules: group.rules.map(securityRuleResource),
    service_ids: group.service_ids,
    created_at: formatDateTime(group.created_at),
  };
}
