import { formString, type FormValue } from '../body.js';
import { nowSeconds } from '../cycles.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';
import { bump, findHost, type ModuleData, type ModuleRecord, type SandboxState } from '../state.js';
import type { SandboxAnswer } from '../types.js';

const MAX_NAT_RULES = 10;
/** The external ports the NAT gateway hands out (shared by every host of the sandbox). */
const NAT_PORT_MIN = 20000;
const NAT_PORT_MAX = 29999;
const MAX_SECURITY_RULES = 50;
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

function externalPortTaken(state: SandboxState, protocol: string, extPort: number): boolean {
  for (const data of state.moduleData.values()) {
    if (data.natRules.some((r) => r.protocol === protocol && r.ext_port === extPort)) return true;
  }
  return false;
}

function freeExternalPort(state: SandboxState, protocol: string): number | null {
  for (let candidate = NAT_PORT_MIN; candidate <= NAT_PORT_MAX; candidate += 1) {
    if (!externalPortTaken(state, protocol, candidate)) return candidate;
  }
  return null;
}

/** `80`, `1-1024`: ascending, within 1–65535. */
function portRange(value: string): boolean {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value);
  if (!m) return false;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to <= 65535 && from <= to;
}

function removeById(list: ModuleRecord[], id: string | undefined): boolean {
  const index = list.findIndex((r) => String(r.id) === id);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

type ModuleFunction = (data: ModuleData, body: Record<string, FormValue>, state: SandboxState) => SandboxAnswer;

const FUNCTIONS: Record<string, ModuleFunction> = {
  addNatRule(data, body, state) {
    const protocol = formString(body, 'protocol') ?? '';
    const internal = port(formString(body, 'int_port'));
    const askedRaw = formString(body, 'ext_port') ?? '';
    const asked = askedRaw === '' ? null : port(askedRaw);
    if (!['tcp', 'udp'].includes(protocol) || internal === null || (askedRaw !== '' && asked === null)) return refuse(SANDBOX_MESSAGES.badParam);
    if (asked !== null && (asked < NAT_PORT_MIN || asked > NAT_PORT_MAX)) return refuse(`外网端口需在 ${NAT_PORT_MIN}-${NAT_PORT_MAX} 之间`);
    if (data.natRules.length >= MAX_NAT_RULES) return refuse('NAT 规则数量已达上限', 400);
    if (asked !== null && externalPortTaken(state, protocol, asked)) return refuse('外网端口已被占用', 400);
    const external = asked ?? freeExternalPort(state, protocol);
    if (external === null) return refuse('外网端口已被占用', 400);
    const id = data.nextId++;
    data.natRules.push({ id, protocol, int_port: internal, ext_port: external });
    return { status: 200, msg: '添加成功', data: { rule_id: id, ext_port: external } };
  },
  delNatRule(data, body) {
    return removeById(data.natRules, formString(body, 'rule_id')) ? { status: 200, msg: '删除成功', data: {} } : refuse(SANDBOX_MESSAGES.notFound);
  },
  addSecurityRule(data, body) {
    const direction = formString(body, 'direction') ?? '';
    const protocol = formString(body, 'protocol') ?? '';
    const ports = formString(body, 'port') ?? '';
    const ip = formString(body, 'ip') ?? '0.0.0.0/0';
    const action = formString(body, 'action') ?? 'accept';
    if (
      !['in', 'out'].includes(direction) ||
      !['tcp', 'udp', 'icmp', 'all'].includes(protocol) ||
      !portRange(ports) ||
      !/^(?:[\d.]{7,15}|[0-9a-fA-F:]{2,39})(\/\d{1,3})?$/.test(ip) ||
      !['accept', 'drop'].includes(action)
    ) {
      return refuse(SANDBOX_MESSAGES.badParam);
    }
    if (data.securityRules.length >= MAX_SECURITY_RULES) return refuse('安全组规则数量已达上限', 400);
    const id = data.nextId++;
    data.securityRules.push({ id, direction, protocol, port: ports, ip, action });
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

type Page = { list: ModuleRecord[]; meta?: Record<string, number | string> };

const METRICS: Record<string, { unit: string; base: number; spread: number }> = {
  cpu: { unit: '%', base: 20, spread: 60 },
  memory: { unit: '%', base: 35, spread: 40 },
  disk_read: { unit: 'KB/s', base: 100, spread: 4000 },
  disk_write: { unit: 'KB/s', base: 50, spread: 2000 },
  net_in: { unit: 'Kbps', base: 200, spread: 8000 },
  net_out: { unit: 'Kbps', base: 100, spread: 20000 },
};
const MONITORING_STEP = 300;
const MONITORING_MAX_POINTS = 1000;

/** A stable pseudo-random value in [0, 1) for one host, metric and time. */
function noise(hostId: number, metric: string, time: number): number {
  let h = 2166136261 ^ hostId;
  for (const ch of `${metric}:${time}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return ((h >>> 0) % 10000) / 10000;
}

/**
 * Monitoring points of a host (`metric`, `start`, `end` in unix seconds, `limit`): one point per
 * step (5 minutes, or wider to fit `limit`), from `start` on, whatever happened to the host
 * before (the upstream keeps the history of a reused host: filtering is the caller's job).
 */
function monitoringPage(hostId: number, query: Record<string, string>): Page | null {
  const metric = METRICS[query['metric'] ?? ''];
  const start = Number(query['start']);
  const end = Number(query['end']);
  const limit = Number(query['limit'] ?? '100');
  if (!metric || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || !Number.isInteger(limit) || limit < 1 || limit > MONITORING_MAX_POINTS) return null;
  const step = Math.max(MONITORING_STEP, Math.ceil((end - start) / limit / MONITORING_STEP) * MONITORING_STEP);
  const list: ModuleRecord[] = [];
  for (let t = Math.ceil(start / step) * step; t <= Math.min(end, nowSeconds()) && list.length < limit; t += step) {
    const value = metric.base + metric.spread * noise(hostId, query['metric'] ?? '', t);
    list.push({ id: t, time: t, value: Math.round(value * 100) / 100 });
  }
  return { list, meta: { metric: query['metric'] ?? '', unit: metric.unit, step } };
}

const PAGES: Record<string, (data: ModuleData, hostId: number, query: Record<string, string>) => Page | null> = {
  nat_rules: (data) => ({ list: data.natRules, meta: { max_rules: MAX_NAT_RULES, port_min: NAT_PORT_MIN, port_max: NAT_PORT_MAX } }),
  security_groups: (data) => ({ list: data.securityRules, meta: { max_rules: MAX_SECURITY_RULES } }),
  snapshots: (data) => ({ list: data.snapshots }),
  monitoring: (_data, hostId, query) => monitoringPage(hostId, query),
};

/**
 * `GET /provision/custom/content?id=<host id>&key=<page>&jwt=<jwt>` with `Authorization: JWT
 * <jwt>`: a custom module page (`nat_rules`, `security_groups`, `snapshots`, `monitoring`
 * with `metric`, `start`, `end`, `limit`). Pages carry their limits beside `list`. The query `jwt`
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
    const answer = page(moduleData(state, host.id), host.id, query);
    if (!answer) return refuse(SANDBOX_MESSAGES.badParam);
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { ...answer.meta, key: query['key'], list: answer.list, total: answer.list.length } };
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
    const answer = run(moduleData(state, host.id), body, state);
    if (answer.status === 200) bump(state.ledger.moduleActions, `${host.id}:${func}`);
    return answer;
  },
};
