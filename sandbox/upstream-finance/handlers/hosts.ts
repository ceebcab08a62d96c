import type { SandboxHost } from '../hosts-data.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';

function hostData(host: SandboxHost) {
  return {
    id: host.id,
    productid: host.productId,
    productname: host.productName,
    domain: host.hostname,
    domainstatus: host.status,
    dedicatedip: host.ip,
    assignedips: host.assignedIps.join(','),
    username: host.username,
    password: host.password,
    port: host.port,
    os: host.os,
    regdate: host.regDate,
    nextduedate: host.nextDueDate,
    billingcycle: host.billingCycle,
    amount: host.amount,
    bwlimit: host.bwLimitGb,
    bwusage: host.bwUsageGb,
  };
}

/** `GET /host/header?host_id=N&source=API`. */
export const hostHeaderRoute: SandboxRoute = {
  method: 'GET',
  path: '/host/header',
  auth: 'required',
  handle({ account, query }) {
    if (!account) return { status: 405, msg: SANDBOX_MESSAGES.tokenInvalid, data: {} };
    const host = account.hosts.find((h) => h.id === Number(query['host_id']));
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.notFound, data: {} };
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { host_data: hostData(host), flow_packet: [] } };
  },
};

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** `GET /host/list?page=N&limit=N`: `limit` is the page size (at most 100); `pageSize` is ignored. */
export const hostListRoute: SandboxRoute = {
  method: 'GET',
  path: '/host/list',
  auth: 'required',
  handle({ account, query }) {
    if (!account) return { status: 405, msg: SANDBOX_MESSAGES.tokenInvalid, data: {} };
    const page = positiveInt(query['page'], 1);
    const limit = Math.min(positiveInt(query['limit'], 10), 100);
    const slice = account.hosts.slice((page - 1) * limit, page * limit);
    const list = slice.map((host) => ({
      id: host.id,
      productid: host.productId,
      productname: host.productName,
      domain: host.hostname,
      domainstatus: host.status,
      dedicatedip: host.ip,
      nextduedate: host.nextDueDate,
      billingcycle: host.billingCycle,
      amount: host.amount,
    }));
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { list, total: account.hosts.length, page, limit } };
  },
};
