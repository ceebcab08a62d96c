import { formString, type FormValue } from '../body.js';
import { nowSeconds } from '../cycles.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';
import { bump, findHost, type ModuleData, type ModuleRecord, type SandboxState } from '../state.js';
import type { SandboxAnswer } from '../types.js';

const MAX_NAT_RULES = 10;
const MAX_SNAPSHOTS = 3;

function moduleData(state: SandboxState, hostId: number): ModuleData {
  let data = state.moduleData.get(hostId);
  if (!data) {
    data = { natRules: [], securityRules: [{ id: 1, direction: 'in', protocol: 'tcp', port: '22', ip: '0.0.0.0/0' }], snapshots: [], nextId: 2 };
    state.moduleData.set(hostId, data);
  }
  return data;
}

function refuse(msg: string, status = 406): SandboxAnswer {
  return { status, msg, data: {} };
}

function port(value: string | undefined): number | null {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

function removeById(list: ModuleRecord[], id: string | undefined): boolean {
  const index = list.findIndex((r) => String(r.id) === id);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

type ModuleFunction = (data: ModuleData, body: Record<string, FormValue>) => SandboxAnswer;

const FUNCTIONS: Record<string, ModuleFunction> = {
  addNatRule(data, body) {
    const protocol = formString(body, 'protocol') ?? '';
    const internal = port(formString(body, 'int_port'));
    if (!['tcp', 'udp'].includes(protocol) || internal === null) return refuse(SANDBOX_MESSAGES.badParam);
    if (data.natRules.length >= MAX_NAT_RULES) return refuse('NAT 规则数量已达上限', 400);
    const id = data.nextId++;
    data.natRules.push({ id, protocol, int_port: internal, ext_port: 20000 + id });
    return { status: 200, msg: '添加成功', data: { rule_id: id, ext_port: 20000 + id } };
  },
  delNatRule(data, body) {
    return removeById(data.natRules, formString(body, 'rule_id')) ? { status: 200, msg: '删除成功', data: {} } : refuse(SANDBOX_MESSAGES.notFound);
  },
  addSecurityRule(data, body) {
    const direction = formString(body, 'direction') ?? '';
    const protocol = formString(body, 'protocol') ?? '';
    const ports = formString(body, 'port') ?? '';
    const ip = formString(body, 'ip') ?? '0.0.0.0/0';
    if (!['in', 'out'].includes(direction) || !['tcp', 'udp', 'icmp', 'all'].includes(protocol) || !/^\d{1,5}(-\d{1,5})?$/.test(ports) || !/^[\d.]+(\/\d{1,2})?$/.test(ip)) {
      return refuse(SANDBOX_MESSAGES.badParam);
    }
    const id = data.nextId++;
    data.securityRules.push({ id, direction, protocol, port: ports, ip });
    return { status: 200, msg: '添加成功', data: { rule_id: id } };
  },
  delSecurityRule(data, body) {
    return removeById(data.securityRules, formString(body, 'rule_id')) ? { status: 200, msg: '删除成功', data: {} } : refuse(SANDBOX_MESSAGES.notFound);
  },
  createSnapshot(data, body) {
    const name = formString(body, 'name')?.trim() ?? '';
    if (name.length < 1 || name.length > 32) return refuse(SANDBOX_MESSAGES.badParam);
    if (data.snapshots.length >= MAX_SNAPSHOTS) return refuse('快照数量已达上限', 400);
    const id = data.nextId++;
    data.snapshots.push({ id, name, status: 'created', create_time: nowSeconds() });
    return { status: 200, msg: '快照创建任务已提交', data: { snapshot_id: id } };
  },
  deleteSnapshot(data, body) {
    return removeById(data.snapshots, formString(body, 'snapshot_id')) ? { status: 200, msg: '删除成功', data: {} } : refuse(SANDBOX_MESSAGES.notFound);
  },
  restoreSnapshot(data, body) {
    const found = data.snapshots.some((s) => String(s.id) === formString(body, 'snapshot_id'));
    return found ? { status: 200, msg: '快照恢复任务已提交', data: {} } : refuse(SANDBOX_MESSAGES.notFound);
  },
};

const PAGES: Record<string, (data: ModuleData) => ModuleRecord[]> = {
  nat_rules: (data) => data.natRules,
  security_groups: (data) => data.securityRules,
  snapshots: (data) => data.snapshots,
};

/**
 * `GET /provision/custom/content?id=<host id>&key=<page>&jwt=<jwt>` with `Authorization: JWT
 * <jwt>`: a custom module page (`nat_rules`, `security_groups`, `snapshots`). The query `jwt`
 * must be the header's token.
 */
export const modulePageRoute: SandboxRoute = {
  method: 'GET',
  path: '/provision/custom/content',
  auth: 'module',
  handle({ state, account, query, authorization }) {
    const token = /^\S+\s+(\S+)$/.exec(authorization)?.[1];
    if (!token || query['jwt'] !== token) {
      state.counters.rejectedTokens += 1;
      return { status: 405, msg: SANDBOX_MESSAGES.tokenInvalid, data: {} };
    }
    const host = findHost(account, query['id']);
    if (!host) return refuse(SANDBOX_MESSAGES.hostNotFound);
    const page = Object.hasOwn(PAGES, query['key'] ?? '') ? PAGES[query['key'] ?? ''] : undefined;
    if (!page) return refuse(SANDBOX_MESSAGES.funcUnsupported);
    if (host.status !== 'Active') return refuse(SANDBOX_MESSAGES.hostStateInvalid, 400);
    const list = page(moduleData(state, host.id));
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { key: query['key'], list, total: list.length } };
  },
};

/** `POST /provision/custom/<host id>` with `Authorization: JWT <jwt>`, `func` and its fields. */
export const moduleActionRoute: SandboxRoute = {
  method: 'POST',
  path: '/provision/custom/:hostId',
  auth: 'module',
  handle({ state, account, params, body }) {
    const host = findHost(account, params['hostId']);
    if (!host) return refuse(SANDBOX_MESSAGES.hostNotFound);
    const func = formString(body, 'func') ?? '';
    const run = Object.hasOwn(FUNCTIONS, func) ? FUNCTIONS[func] : undefined;
    if (!run) return refuse(SANDBOX_MESSAGES.funcUnsupported);
    if (host.status !== 'Active') return refuse(SANDBOX_MESSAGES.hostStateInvalid, 400);
    const answer = run(moduleData(state, host.id), body);
    if (answer.status === 200) bump(state.ledger.moduleActions, `${host.id}:${func}`);
    return answer;
  },
};
