import { flowPacketsFor } from '../flow-packets.js';
import type { SandboxHost } from '../hosts-data.js';
import { listPageData } from '../list-page.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { refreshHost } from '../provisioning.js';
import type { SandboxRoute } from '../route-types.js';
import { findHost } from '../state.js';

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
    bwlimit: host.bwLimitGb + host.extraTrafficGb,
    bwusage: host.bwUsageGb,
    flow_packet_total: host.extraTrafficGb,
    power_status: host.power,
  };
}

/**
 * `GET /host/header?host_id=N&source=API`: the host (`data.host_data`) and the traffic
 * packages on sale for it (`data.flow_packet`). Each read is a poll a provisioning host waits for.
 */
export const hostHeaderRoute: SandboxRoute = {
  method: 'GET',
  path: '/host/header',
  auth: 'required',
  handle({ account, query }) {
    const host = findHost(account, query['host_id']);
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.notFound, data: {} };
    refreshHost(host, true);
    const packets = flowPacketsFor(host).map((p) => ({ id: p.id, name: p.name, capacity: p.capacity, price: p.price, status: 1 }));
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { host_data: hostData(host), flow_packet: packets } };
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
  handle({ state, account, query }) {
    const page = positiveInt(query['page'], 1);
    const limit = Math.min(positiveInt(query['limit'], 10), 100);
    const slice = account.hosts.slice((page - 1) * limit, page * limit);
    const list = slice.map((host) => {
      refreshHost(host, false);
      return {
      id: host.id,
      productid: host.productId,
      productname: host.productName,
      domain: host.hostname,
      domainstatus: host.status,
      dedicatedip: host.ip,
      assignedips: host.assignedIps.join(','),
      nextduedate: host.nextDueDate,
      billingcycle: host.billingCycle,
      amount: host.amount,
      };
    });
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: listPageData(state, list, account.hosts.length, page, limit) };
  },
};
