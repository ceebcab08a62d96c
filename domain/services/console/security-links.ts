import { UniqueConstraintError } from 'sequelize';
import type { SecurityGroupRuleRow } from '../../../db/models/security-group.js';
import { AppError, ErrorCode, conflict, notFound } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import type { ServiceView } from '../service-view.js';
import { takeConsoleAction } from './action-limit.js';
import { recordConsoleEvent, runModuleFunction, withFailureEvent } from './module-call.js';
import { requireConsoleAction } from './resolve-capabilities.js';
import { findOwnGroup, groupViews, type SecurityGroupView } from './security-group-views.js';

/** Groups linked to one service at most. */
export const GROUPS_PER_SERVICE = 5;

/**
 * Services whose host is gone for good: their links hold no upstream rules worth keeping in
 * step. Group changes pass them by, and unlinking one only removes the link here.
 */
const HOST_GONE: readonly string[] = ['terminated', 'cancelled', 'failed'];

/** Our rule → the upstream custom module's `addSecurityRule` fields. */
export function upstreamRuleFields(rule: SecurityGroupRuleRow): Record<string, string> {
  return {
    direction: rule.direction,
    protocol: rule.protocol,
    port: rule.port_from === rule.port_to ? String(rule.port_from) : `${rule.port_from}-${rule.port_to}`,
    ip: rule.cidr,
    action: rule.action === 'allow' ? 'accept' : 'drop',
  };
}

function ruleLabel(rule: SecurityGroupRuleRow): string {
  const ports = rule.protocol === 'tcp' || rule.protocol === 'udp' ? ` ${rule.port_from === rule.port_to ? rule.port_from : `${rule.port_from}-${rule.port_to}`}` : '';
  return `${rule.direction === 'in' ? '入站' : '出站'} ${rule.protocol.toUpperCase()}${ports} ${rule.cidr} ${rule.action === 'allow' ? '允许' : '拒绝'}`;
}

/** Pushes one rule to a service's host and remembers the upstream id (a second push of the same rule is taken back). */
async function pushOne(deps: DomainDeps, input: { serviceId: number; userId: number; rule: SecurityGroupRuleRow }): Promise<void> {
  const { result } = await runModuleFunction(deps, { serviceId: input.serviceId, userId: input.userId, fn: 'addSecurityRule', fields: upstreamRuleFields(input.rule) });
  const upstreamId = result['rule_id'];
  if (typeof upstreamId !== 'number' && typeof upstreamId !== 'string') throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '上游未返回安全组规则编号，请稍后再试');
  try {
    await deps.db.models.ServiceSecurityRulePush.create({ service_id: input.serviceId, rule_id: input.rule.id, group_id: input.rule.group_id, upstream_rule_id: String(upstreamId) });
  } catch (err) {
    if (!(err instanceof UniqueConstraintError)) throw err;
    await deleteUpstreamRule(deps, { serviceId: input.serviceId, userId: input.userId, upstreamRuleId: String(upstreamId) });
  }
}

/** Deletes a pushed rule upstream; one the upstream no longer has counts as deleted. */
async function deleteUpstreamRule(deps: DomainDeps, input: { serviceId: number; userId: number; upstreamRuleId: string }): Promise<void> {
  try {
    await runModuleFunction(deps, { serviceId: input.serviceId, userId: input.userId, fn: 'delSecurityRule', fields: { rule_id: input.upstreamRuleId } });
  } catch (err) {
    const code = err instanceof AppError ? (err.data as { error_code?: unknown } | null)?.error_code : null;
    if (code !== 'not_found') throw err;
  }
}

/** Takes back what a failed change pushed (best effort: the failure being answered is the one that counts). */
async function takeBack(deps: DomainDeps, input: { serviceId: number; userId: number; ruleIds: number[] }): Promise<void> {
  const pushes = await deps.db.models.ServiceSecurityRulePush.findAll({ where: { service_id: input.serviceId, rule_id: input.ruleIds } });
  for (const push of pushes) {
    try {
      await deleteUpstreamRule(deps, { serviceId: input.serviceId, userId: input.userId, upstreamRuleId: push.upstream_rule_id });
      await push.destroy();
    } catch (err) {
      deps.logger.warn({ err, serviceId: input.serviceId, ruleId: push.rule_id }, 'security rule take-back failed');
    }
  }
}

/** Every service a group is linked to, each checked usable (a group change must reach all of them). */
async function linkedServices(deps: DomainDeps, userId: number, groupId: number): Promise<ServiceView[]> {
  const links = await deps.db.models.ServiceSecurityGroup.findAll({ where: { group_id: groupId, user_id: userId }, order: [['service_id', 'ASC']] });
  const services: ServiceView[] = [];
  for (const link of links) {
    const service = await findServiceView(deps, link.service_id, userId);
    if (HOST_GONE.includes(service.status)) continue;
    try {
      await requireConsoleAction(deps, service, 'security', userId);
    } catch (err) {
      if (err instanceof AppError) throw new AppError(err.code, `关联的服务 #${service.id} 当前无法同步安全组规则：${err.message}`);
      throw err;
    }
    services.push(service);
  }
  return services;
}

/** A new rule of a group onto every linked service's host; on a failure, the hosts already done are taken back. */
export async function pushRuleToLinkedServices(deps: DomainDeps, input: { userId: number; rule: SecurityGroupRuleRow }): Promise<void> {
  const services = await linkedServices(deps, input.userId, input.rule.group_id);
  const done: number[] = [];
  for (const service of services) {
    const event = { serviceId: service.id, userId: input.userId, stage: 'security_rule_add', detail: { group_id: input.rule.group_id, rule_id: input.rule.id } };
    try {
      await withFailureEvent(deps, event, () => pushOne(deps, { serviceId: service.id, userId: input.userId, rule: input.rule }));
    } catch (err) {
      for (const serviceId of done) await takeBack(deps, { serviceId, userId: input.userId, ruleIds: [input.rule.id] });
      throw err;
    }
    done.push(service.id);
    await recordConsoleEvent(deps, { ...event, ok: true, message: `安全组规则已同步：${ruleLabel(input.rule)}` });
  }
}

/** A rule off every host it was pushed to (each push row goes once its upstream rule is gone). */
export async function removeRuleFromLinkedServices(deps: DomainDeps, input: { userId: number; rule: SecurityGroupRuleRow }): Promise<void> {
  const live = new Set((await linkedServices(deps, input.userId, input.rule.group_id)).map((s) => s.id));
  const pushes = await deps.db.models.ServiceSecurityRulePush.findAll({ where: { rule_id: input.rule.id }, order: [['service_id', 'ASC']] });
  for (const push of pushes) {
    if (!live.has(push.service_id)) continue; // a gone host: the push row goes with the rule
    const event = { serviceId: push.service_id, userId: input.userId, stage: 'security_rule_remove', detail: { group_id: input.rule.group_id, rule_id: input.rule.id } };
    await withFailureEvent(deps, event, () => deleteUpstreamRule(deps, { serviceId: push.service_id, userId: input.userId, upstreamRuleId: push.upstream_rule_id }));
    await push.destroy();
    await recordConsoleEvent(deps, { ...event, ok: true, message: `安全组规则已移除：${ruleLabel(input.rule)}` });
  }
}

async function securityService(deps: DomainDeps, input: { serviceId: number; userId: number }): Promise<ServiceView> {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'security', input.userId);
  return service;
}

/** The user's groups linked to the service (local: what we pushed). */
export async function listServiceSecurityGroups(
  deps: DomainDeps,
  input: { serviceId: number; userId: number; page: number; page_size: number },
): Promise<{ rows: SecurityGroupView[]; total: number }> {
  const service = await securityService(deps, input);
  const m = deps.db.models;
  const links = await m.ServiceSecurityGroup.findAll({ where: { service_id: service.id, user_id: input.userId }, order: [['created_at', 'ASC']] });
  const where = { id: links.map((l) => l.group_id), user_id: input.userId };
  const [total, groups] =
    links.length === 0
      ? [0, []]
      : await Promise.all([
          m.SecurityGroup.count({ where }),
          m.SecurityGroup.findAll({ where, order: [['id', 'ASC']], limit: input.page_size, offset: (input.page - 1) * input.page_size }),
        ]);
  return { rows: await groupViews(deps, groups), total };
}

/**
 * Links the user's group to the user's service: the link row first (its primary key makes a
 * second link 40900), then every rule of the group pushed to the host. On a failure the rules
 * already pushed are deleted upstream and the link removed; the failure is answered.
 */
export async function linkSecurityGroup(deps: DomainDeps, input: { serviceId: number; userId: number; groupId: number }) {
  const service = await securityService(deps, input);
  const group = await findOwnGroup(deps, input.userId, input.groupId);
  await takeConsoleAction(deps, input.userId, 'security');
  const m = deps.db.models;
  await deps.db.sequelize.transaction(async (transaction) => {
    await m.Service.findByPk(service.id, { lock: transaction.LOCK.UPDATE, transaction, attributes: ['id'] });
    const count = await m.ServiceSecurityGroup.count({ where: { service_id: service.id }, transaction });
    if (count >= GROUPS_PER_SERVICE) throw new AppError(ErrorCode.CONSOLE_LIMIT_REACHED, `每个服务最多关联 ${GROUPS_PER_SERVICE} 个安全组`);
    try {
      await m.ServiceSecurityGroup.create({ service_id: service.id, group_id: group.id, user_id: input.userId }, { transaction });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw conflict('该安全组已关联此服务');
      throw err;
    }
  });
  const rules = await m.SecurityGroupRule.findAll({ where: { group_id: group.id }, order: [['id', 'ASC']] });
  const event = { serviceId: service.id, userId: input.userId, stage: 'security_link', detail: { group_id: group.id, rules: rules.length } };
  try {
    await withFailureEvent(deps, event, async () => {
      for (const rule of rules) await pushOne(deps, { serviceId: service.id, userId: input.userId, rule });
    });
  } catch (err) {
    await takeBack(deps, { serviceId: service.id, userId: input.userId, ruleIds: rules.map((r) => r.id) });
    await m.ServiceSecurityGroup.destroy({ where: { service_id: service.id, group_id: group.id } });
    throw err;
  }
  await recordConsoleEvent(deps, { ...event, ok: true, message: `已关联安全组「${group.name}」（${rules.length} 条规则）` });
  return { service_id: service.id, group_id: group.id, linked: true, rules_pushed: rules.length };
}

/** Unlinks a group: its pushed rules deleted upstream one by one, then the link. A failure leaves the link (retry). */
export async function unlinkSecurityGroup(deps: DomainDeps, input: { serviceId: number; userId: number; groupId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  const m = deps.db.models;
  const link = await m.ServiceSecurityGroup.findOne({ where: { service_id: service.id, group_id: input.groupId, user_id: input.userId } });
  if (!link) throw notFound('该服务未关联此安全组');
  const group = await findOwnGroup(deps, input.userId, input.groupId);
  if (HOST_GONE.includes(service.status)) {
    await takeConsoleAction(deps, input.userId, 'security');
    await m.ServiceSecurityRulePush.destroy({ where: { service_id: service.id, group_id: group.id } });
    await m.ServiceSecurityGroup.destroy({ where: { service_id: service.id, group_id: group.id } });
    return { service_id: service.id, group_id: group.id, linked: false };
  }
  await requireConsoleAction(deps, service, 'security', input.userId);
  await takeConsoleAction(deps, input.userId, 'security');
  const pushes = await m.ServiceSecurityRulePush.findAll({ where: { service_id: service.id, group_id: group.id }, order: [['rule_id', 'ASC']] });
  const event = { serviceId: service.id, userId: input.userId, stage: 'security_unlink', detail: { group_id: group.id, rules: pushes.length } };
  await withFailureEvent(deps, event, async () => {
    for (const push of pushes) {
      await deleteUpstreamRule(deps, { serviceId: service.id, userId: input.userId, upstreamRuleId: push.upstream_rule_id });
      await push.destroy();
    }
  });
  await m.ServiceSecurityGroup.destroy({ where: { service_id: service.id, group_id: group.id } });
  await recordConsoleEvent(deps, { ...event, ok: true, message: `已解除安全组「${group.name}」的关联` });
  return { service_id: service.id, group_id: group.id, linked: false };
}
