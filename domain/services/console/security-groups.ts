import { ForeignKeyConstraintError, UniqueConstraintError } from 'sequelize';
import type { SecurityRuleAction, SecurityRuleDirection, SecurityRuleProtocol } from '../../../db/models/security-group.js';
import { AppError, ErrorCode, conflict, notFound, validationError } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { takeConsoleAction } from './action-limit.js';
import { normaliseCidr, parsePortRange } from './cidr.js';
import { findOwnGroup, groupViews, type SecurityGroupView } from './security-group-views.js';
import { pushRuleToLinkedServices, removeRuleFromLinkedServices } from './security-links.js';

/** Bounds of a user's security groups. */
export const SECURITY_GROUP_LIMITS = { groupsPerUser: 20, rulesPerGroup: 50 } as const;

export type SecurityRuleInput = {
  direction: SecurityRuleDirection;
  protocol: SecurityRuleProtocol;
  /** `80` or `1000-2000`; required for tcp/udp, ignored (all ports) for icmp/all. */
  port_range?: string | undefined;
  cidr: string;
  action: SecurityRuleAction;
  description?: string | undefined;
};

/** A rule as stored: the port range and CIDR checked and normalised; 42200 with field errors otherwise. */
export function checkRule(input: SecurityRuleInput, field = ''): { direction: SecurityRuleDirection; protocol: SecurityRuleProtocol; port_from: number; port_to: number; cidr: string; action: SecurityRuleAction; description: string } {
  const errors: Record<string, string[]> = {};
  const cidr = normaliseCidr(input.cidr);
  if (!cidr) errors[`${field}cidr`] = ['CIDR 格式不正确，例如 203.0.113.0/24、0.0.0.0/0 或 2001:db8::/32'];
  let ports = { from: 1, to: 65535 };
  if (input.protocol === 'tcp' || input.protocol === 'udp') {
    const parsed = input.port_range === undefined ? null : parsePortRange(input.port_range);
    if (!parsed) errors[`${field}port_range`] = ['端口范围需为 1 到 65535 之间的端口或范围，例如 22 或 1000-2000'];
    else ports = parsed;
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { direction: input.direction, protocol: input.protocol, port_from: ports.from, port_to: ports.to, cidr: cidr ?? '', action: input.action, description: (input.description ?? '').trim() };
}

export async function listSecurityGroups(deps: DomainDeps, input: { userId: number; page: number; pageSize: number }) {
  const { rows, count } = await deps.db.models.SecurityGroup.findAndCountAll({
    where: { user_id: input.userId },
    order: [['id', 'ASC']],
    limit: input.pageSize,
    offset: (input.page - 1) * input.pageSize,
  });
  return { rows: await groupViews(deps, rows), total: count };
}

export async function getSecurityGroup(deps: DomainDeps, input: { userId: number; groupId: number }): Promise<SecurityGroupView> {
  const [view] = await groupViews(deps, [await findOwnGroup(deps, input.userId, input.groupId)]);
  if (!view) throw notFound('安全组不存在');
  return view;
}

/** A new group of the user, with its first rules (all checked before anything is written). Local only: nothing upstream until it is linked. */
export async function createSecurityGroup(deps: DomainDeps, input: { userId: number; name: string; description?: string | undefined; rules?: SecurityRuleInput[] | undefined }) {
  const rules = (input.rules ?? []).map((r, i) => checkRule(r, `rules.${i}.`));
  if (rules.length > SECURITY_GROUP_LIMITS.rulesPerGroup) throw validationError({ rules: [`每个安全组最多 ${SECURITY_GROUP_LIMITS.rulesPerGroup} 条规则`] });
  await takeConsoleAction(deps, input.userId, 'security');
  const m = deps.db.models;
  const group = await deps.db.sequelize.transaction(async (transaction) => {
    // One user's creations are serialised by the lock on the user row, so the count holds.
    await m.User.findByPk(input.userId, { lock: transaction.LOCK.UPDATE, transaction, attributes: ['id'] });
    const count = await m.SecurityGroup.count({ where: { user_id: input.userId }, transaction });
    if (count >= SECURITY_GROUP_LIMITS.groupsPerUser) throw new AppError(ErrorCode.CONSOLE_LIMIT_REACHED, `安全组数量已达上限（每个用户最多 ${SECURITY_GROUP_LIMITS.groupsPerUser} 个）`);
    try {
      const created = await m.SecurityGroup.create({ user_id: input.userId, name: input.name.trim(), description: (input.description ?? '').trim() }, { transaction });
      if (rules.length > 0) await m.SecurityGroupRule.bulkCreate(rules.map((r) => ({ ...r, group_id: created.id })), { transaction });
      return created;
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw conflict('已有同名的安全组');
      throw err;
    }
  });
  return getSecurityGroup(deps, { userId: input.userId, groupId: group.id });
}

/** Deletes a group that no service uses (40901 otherwise: unlink it first). */
export async function deleteSecurityGroup(deps: DomainDeps, input: { userId: number; groupId: number }) {
  const group = await findOwnGroup(deps, input.userId, input.groupId);
  await takeConsoleAction(deps, input.userId, 'security');
  const inUse = () => new AppError(ErrorCode.IN_USE, '安全组仍关联着服务，请先解除关联');
  if ((await deps.db.models.ServiceSecurityGroup.count({ where: { group_id: group.id } })) > 0) throw inUse();
  try {
    // A link made meanwhile holds a foreign key to the group: the delete then fails instead.
    await deps.db.models.SecurityGroup.destroy({ where: { id: group.id, user_id: input.userId } });
  } catch (err) {
    if (err instanceof ForeignKeyConstraintError) throw inUse();
    throw err;
  }
  return { id: group.id, deleted: true };
}

/**
 * Adds a rule to the user's group and pushes it to every service the group is linked to. When
 * a push fails, the rule is taken back (from the hosts it reached, then here) and the failure
 * answered: the group and the hosts stay as they were.
 */
export async function addSecurityRule(deps: DomainDeps, input: { userId: number; groupId: number; rule: SecurityRuleInput }) {
  const group = await findOwnGroup(deps, input.userId, input.groupId);
  const checked = checkRule(input.rule);
  await takeConsoleAction(deps, input.userId, 'security');
  const m = deps.db.models;
  const rule = await deps.db.sequelize.transaction(async (transaction) => {
    await m.SecurityGroup.findByPk(group.id, { lock: transaction.LOCK.UPDATE, transaction, attributes: ['id'] });
    const count = await m.SecurityGroupRule.count({ where: { group_id: group.id }, transaction });
    if (count >= SECURITY_GROUP_LIMITS.rulesPerGroup) throw new AppError(ErrorCode.CONSOLE_LIMIT_REACHED, `安全组规则数量已达上限（每个安全组最多 ${SECURITY_GROUP_LIMITS.rulesPerGroup} 条）`);
    return m.SecurityGroupRule.create({ ...checked, group_id: group.id }, { transaction });
  });
  try {
    await pushRuleToLinkedServices(deps, { userId: input.userId, rule });
  } catch (err) {
    await m.SecurityGroupRule.destroy({ where: { id: rule.id } });
    throw err;
  }
  return rule;
}

/** Removes a rule of the user's group: first from every host it was pushed to, then here. */
export async function removeSecurityRule(deps: DomainDeps, input: { userId: number; groupId: number; ruleId: number }) {
  const group = await findOwnGroup(deps, input.userId, input.groupId);
  const rule = await deps.db.models.SecurityGroupRule.findOne({ where: { id: input.ruleId, group_id: group.id } });
  if (!rule) throw notFound('安全组规则不存在');
  await takeConsoleAction(deps, input.userId, 'security');
  await removeRuleFromLinkedServices(deps, { userId: input.userId, rule });
  await deps.db.models.SecurityGroupRule.destroy({ where: { id: rule.id } });
  return { group_id: group.id, rule_id: rule.id, deleted: true };
}
