import { formString } from '../body.js';
import { findInvoice, payInvoice } from '../billing.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { refreshHost } from '../provisioning.js';
import type { SandboxRoute } from '../route-types.js';
import { findHost, type AccountState, type SandboxInvoice, type SandboxOrder, type SandboxState } from '../state.js';

/** `POST /pay?action=billing&pay=true` with `invoiceid`: settle the bill from the account credit. */
export const payRoute: SandboxRoute = {
  method: 'POST',
  path: '/pay',
  auth: 'required',
  handle({ state, account, query, body }) {
    if (query['action'] !== 'billing' || query['pay'] !== 'true') return { status: 406, msg: SANDBOX_MESSAGES.badParam, data: {} };
    const invoice = findInvoice(state, account, formString(body, 'invoiceid') ?? query['invoiceid']);
    if (!invoice) return { status: 406, msg: SANDBOX_MESSAGES.invoiceNotFound, data: {} };
    return payInvoice(state, account, invoice);
  },
};

function invoiceView(invoice: SandboxInvoice) {
  return {
    id: invoice.id,
    type: invoice.type,
    status: invoice.status,
    total: invoice.total,
    credit: invoice.credit,
    hostid: invoice.hostIds,
    paid_time: invoice.paidAt ?? 0,
    create_time: invoice.createdAt,
  };
}

function orderView(order: SandboxOrder) {
  return { id: order.id, status: order.status, invoiceid: order.invoiceId, hostid: order.hostIds, create_time: order.createdAt };
}

function hostsView(account: AccountState, hostIds: number[]) {
  return account.hosts
    .filter((h) => hostIds.includes(h.id))
    .map((h) => {
      refreshHost(h, false);
      return { id: h.id, domainstatus: h.status, nextduedate: h.nextDueDate };
    });
}

function findOrder(state: SandboxState, account: AccountState, match: (order: SandboxOrder) => boolean): SandboxOrder | null {
  for (const order of state.orders.values()) if (order.username === account.username && match(order)) return order;
  return null;
}

/**
 * `GET /check_order?invoiceid=N` or `?hostid=N`: the order, its invoice and hosts; a host
 * look-up also lists every invoice of the host (newest first), so a reseller can find a
 * renewal or traffic-package bill whose answer it never received.
 */
export const checkOrderRoute: SandboxRoute = {
  method: 'GET',
  path: '/check_order',
  auth: 'required',
  handle({ state, account, query }) {
    if (query['invoiceid'] !== undefined) {
      const invoice = findInvoice(state, account, query['invoiceid']);
      if (!invoice) return { status: 406, msg: SANDBOX_MESSAGES.invoiceNotFound, data: {} };
      const order = invoice.orderId === null ? null : findOrder(state, account, (o) => o.id === invoice.orderId);
      return {
        status: 200,
        msg: SANDBOX_MESSAGES.ok,
        data: { order: order ? orderView(order) : null, invoice: invoiceView(invoice), hosts: hostsView(account, invoice.hostIds), invoices: [] },
      };
    }
    const host = findHost(account, query['hostid']);
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.hostNotFound, data: {} };
    const order = findOrder(state, account, (o) => o.hostIds.includes(host.id));
    const invoice = order ? state.invoices.get(order.invoiceId) : undefined;
    const invoices = [...state.invoices.values()]
      .filter((i) => i.username === account.username && i.hostIds.includes(host.id))
      .sort((a, b) => b.id - a.id)
      .slice(0, 20)
      .map(invoiceView);
    return {
      status: 200,
      msg: SANDBOX_MESSAGES.ok,
      data: { order: order ? orderView(order) : null, invoice: invoice ? invoiceView(invoice) : null, hosts: hostsView(account, [host.id]), invoices },
    };
  },
};
