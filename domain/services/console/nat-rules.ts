import { AppError, ErrorCode, notFound, validationError } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import type { ServiceView } from '../service-view.js';
import { takeConsoleAction } from './action-limit.js';
import { readModulePage, recordConsoleEvent, runModuleFunction, withFailureEvent } from './module-call.js';
import { requireConsoleAction } from './resolve-capabilities.js';

export const NAT_PROTOCOLS = ['tcp', 'udp'] as const;
export type NatProtocol = (typeof NAT_PROTOCOLS)[number];

export type NatRule = { id: number; protocol: NatProtocol; external_port: number; internal_port: number };
/** What the upstream allows for the host (null where its page does not say). */
export type NatLimits = { max_rules: number | null; external_port_min: number | null; external_port_max: number | null };

function int(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

function toRule(item: Record<string, unknown>): NatRule | null {
  const id = int(item['id']);
  const protocol = NAT_PROTOCOLS.find((p) => p === item['protocol']);
  const external = int(item['ext_port']);
  const internal = int(item['int_port']);
  if (id === null || id <= 0 || !protocol || external === null || internal === null) return null;
  return { id, protocol, external_port: external, internal_port: internal };
}

async function natService(deps: DomainDeps, input: { serviceId: number; userId: number }): Promise<ServiceView> {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'network', input.userId);
  await takeConsoleAction(deps, input.userId, 'network');
  return service;
}

/** The host's NAT rules and the upstream's limits (custom module page `nat_rules`). */
async function readNat(deps: DomainDeps, serviceId: number, userId: number): Promise<{ rules: NatRule[]; limits: NatLimits }> {
  const page = await readModulePage(deps, { serviceId, userId, page: 'nat_rules' });
  return {
    rules: page.items.flatMap((item) => toRule(item) ?? []),
    limits: { max_rules: int(page.meta['max_rules']), external_port_min: int(page.meta['port_min']), external_port_max: int(page.meta['port_max']) },
  };
}

/**
 * A page of the service's NAT port forwarding rules, read live from the upstream (nothing stored
 * here; the upstream answers them all, so the page is cut here, in the upstream's order).
 */
export async function listNatRules(deps: DomainDeps, input: { serviceId: number; userId: number; page: number; page_size: number }) {
  const service = await natService(deps, input);
  const { rules } = await readNat(deps, service.id, input.userId);
  const start = (input.page - 1) * input.page_size;
  return { rows: rules.slice(start, start + input.page_size), total: rules.length };
}

/** What the upstream allows for the service's host, and how many rules it holds now. */
export async function readNatLimits(deps: DomainDeps, input: { serviceId: number; userId: number }) {
  const service = await natService(deps, input);
  const { rules, limits } = await readNat(deps, service.id, input.userId);
  return { service_id: service.id, rule_count: rules.length, ...limits };
}

/**
 * Adds a forwarding rule upstream (`addNatRule`): the external port is the one asked for or,
 * without one, chosen by the upstream. The upstream's limits are checked first, with our own
 * Chinese errors and nothing sent: the rule count (40950), the external port range (42200) and a
 * port this host already forwards (40951); the upstream's own refusals map the same way (a port
 * taken by another host is only known there). Written to the service history either way.
 */
export async function addNatRule(deps: DomainDeps, input: { serviceId: number; userId: number; protocol: NatProtocol; internalPort: number; externalPort?: number | undefined }) {
  const service = await natService(deps, input);
  const detail = { protocol: input.protocol, internal_port: input.internalPort, external_port: input.externalPort ?? null };
  const event = { serviceId: service.id, userId: input.userId, stage: 'nat_add', detail };
  return withFailureEvent(deps, event, async () => {
    const { rules, limits } = await readNat(deps, service.id, input.userId);
    if (limits.max_rules !== null && rules.length >= limits.max_rules) {
      throw new AppError(ErrorCode.CONSOLE_LIMIT_REACHED, `NAT 规则数量已达上限（每台主机最多 ${limits.max_rules} 条）`);
    }
    const asked = input.externalPort;
    if (asked !== undefined && limits.external_port_min !== null && limits.external_port_max !== null && (asked < limits.external_port_min || asked > limits.external_port_max)) {
      throw validationError({ external_port: [`外网端口需在 ${limits.external_port_min} 到 ${limits.external_port_max} 之间`] });
    }
    if (asked !== undefined && rules.some((r) => r.protocol === input.protocol && r.external_port === asked)) {
      throw new AppError(ErrorCode.PORT_TAKEN, `外网端口 ${asked}（${input.protocol.toUpperCase()}）已被该主机的其他规则使用`);
    }
    const fields: Record<string, string | number> = { protocol: input.protocol, int_port: input.internalPort };
    if (asked !== undefined) fields['ext_port'] = asked;
    const { result, logId } = await runModuleFunction(deps, { serviceId: service.id, userId: input.userId, fn: 'addNatRule', fields });
    const id = int(result['rule_id']);
    const external = int(result['ext_port']) ?? asked ?? null;
    const rule = { id: id ?? 0, protocol: input.protocol, external_port: external ?? 0, internal_port: input.internalPort };
    await recordConsoleEvent(deps, {
      ...event,
      ok: true,
      message: `已添加端口转发：${rule.external_port} → ${rule.internal_port}（${input.protocol.toUpperCase()}）`,
      detail: { ...detail, rule_id: rule.id, external_port: rule.external_port, plugin_log_id: logId },
    });
    return { service_id: service.id, rule };
  });
}

/**
 * Deletes a forwarding rule upstream (`delNatRule`). The rule must be one of this host's (read
 * live first): any other id, another user's host's included, is 40400 and nothing is sent.
 */
export async function deleteNatRule(deps: DomainDeps, input: { serviceId: number; userId: number; ruleId: number }) {
  const service = await natService(deps, input);
  const event = { serviceId: service.id, userId: input.userId, stage: 'nat_delete', detail: { rule_id: input.ruleId } };
  const { rules } = await readNat(deps, service.id, input.userId);
  const rule = rules.find((r) => r.id === input.ruleId);
  if (!rule) throw notFound('NAT 规则不存在');
  return withFailureEvent(deps, event, async () => {
    const { logId } = await runModuleFunction(deps, { serviceId: service.id, userId: input.userId, fn: 'delNatRule', fields: { rule_id: rule.id } });
    await recordConsoleEvent(deps, {
      ...event,
      ok: true,
      message: `已删除端口转发：${rule.external_port} → ${rule.internal_port}（${rule.protocol.toUpperCase()}）`,
      detail: { ...event.detail, plugin_log_id: logId },
    });
    return { service_id: service.id, rule_id: rule.id, deleted: true };
  });
}
