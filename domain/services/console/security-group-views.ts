import type { SecurityGroupRow, SecurityGroupRuleRow } from '../../../db/models/security-group.js';
import { notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';

/* A user's security groups as both the group routes and a service's links read them (security-groups.ts, security-links.ts). */

export type SecurityGroupView = SecurityGroupRow & { rules: SecurityGroupRuleRow[]; service_ids: number[] };

/** Each group with its rules and the ids of the services it is linked to (ascending). */
export async function groupViews(deps: DomainDeps, groups: SecurityGroupRow[]): Promise<SecurityGroupView[]> {
  const ids = groups.map((g) => g.id);
  if (ids.length === 0) return [];
  const m = deps.db.models;
  const [rules, links] = await Promise.all([
    m.SecurityGroupRule.findAll({ where: { group_id: ids }, order: [['id', 'ASC']] }),
    m.ServiceSecurityGroup.findAll({ where: { group_id: ids }, order: [['service_id', 'ASC']] }),
  ]);
  return groups.map((g) =>
    Object.assign(g, { rules: rules.filter((r) => r.group_id === g.id), service_ids: links.filter((l) => l.group_id === g.id).map((l) => l.service_id) }),
  );
}

/** The user's own group; another user's (or none) is 40400. */
export async function findOwnGroup(deps: DomainDeps, userId: number, groupId: number): Promise<SecurityGroupRow> {
  const group = await deps.db.models.SecurityGroup.findOne({ where: { id: groupId, user_id: userId } });
  if (!group) throw notFound('安全组不存在');
  return group;
}
