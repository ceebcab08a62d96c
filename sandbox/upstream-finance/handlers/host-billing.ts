import { formString } from '../body.js';
import { createInvoice } from '../billing.js';
import { pricedProduct } from '../prices.js';
import { findFlowPacket } from '../flow-packets.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { isCycleOffered, priceOrder } from '../order-pricing.js';
import { chooseValue } from '../cart-item.js';
import { formatMoney, money } from '../../../lib/money.js';
import type { SandboxRoute } from '../route-types.js';
import { findHost, type AccountState, type SandboxInvoice, type SandboxState } from '../state.js';

function unpaidInvoice(state: SandboxState, account: AccountState, match: (invoice: SandboxInvoice) => boolean): SandboxInvoice | undefined {
  return [...state.invoices.values()].find((i) => i.username === account.username && i.status === 'Unpaid' && match(i));
}

/**
 * `POST /host/renew` (`hostid`, `billingcycle`): a renewal invoice, settled with `/pay`.
 * An unpaid renewal invoice of the host for the same cycle is answered again instead of a
 * second one; one for another cycle is cancelled and replaced.
 */
export const hostRenewRoute: SandboxRoute = {
  method: 'POST',
  path: '/host/renew',
  auth: 'required',
  handle({ state, account, body }) {
    const host = findHost(account, formString(body, 'hostid'));
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.hostNotFound, data: {} };
    if (host.status !== 'Active' && host.status !== 'Suspended') return { status: 400, msg: SANDBOX_MESSAGES.hostStateInvalid, data: {} };
    const product = pricedProduct(state.prices, host.productId);
    const cycle = formString(body, 'billingcycle') ?? host.billingCycle;
    if (!product || !isCycleOffered(product, cycle) || cycle === 'onetime') return { status: 406, msg: SANDBOX_MESSAGES.cycleInvalid, data: {} };
    const pending = unpaidInvoice(state, account, (i) => i.type === 'renew' && i.hostIds.includes(host.id));
    if (pending && pending.cycle === cycle) return { status: 200, msg: SANDBOX_MESSAGES.renewCreated, data: { invoiceid: pending.id, total: pending.total, billingcycle: cycle } };
    if (pending) pending.status = 'Cancelled';
    const seeded = Object.keys(host.config).length === 0;
    const total = seeded && cycle === host.billingCycle ? host.amount : priceOrder(product, cycle, host.config);
    const invoice = createInvoice(state, account, { type: 'renew', total, hostIds: [host.id], orderId: null, cycle, packageId: null });
    return { status: 200, msg: SANDBOX_MESSAGES.renewCreated, data: { invoiceid: invoice.id, total, billingcycle: cycle } };
  },
};

/**
 * `POST /host/flowpacket/buy` (`hostid`, `fid`): an invoice for a traffic package, settled with
 * `/pay`; paying adds the traffic. An unpaid invoice for the same package is answered again.
 */
export const flowPacketBuyRoute: SandboxRoute = {
  method: 'POST',
  path: '/host/flowpacket/buy',
  auth: 'required',
  handle({ state, account, body }) {
    const host = findHost(account, formString(body, 'hostid'));
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.hostNotFound, data: {} };
    if (host.status !== 'Active') return { status: 400, msg: SANDBOX_MESSAGES.hostStateInvalid, data: {} };
    const packet = findFlowPacket(host, Number(formString(body, 'fid')));
    if (!packet) return { status: 406, msg: SANDBOX_MESSAGES.flowPacketNotFound, data: {} };
    const pending = unpaidInvoice(state, account, (i) => i.type === 'flow_packet' && i.packageId === packet.id && i.hostIds.includes(host.id));
    const invoice = pending ?? createInvoice(state, account, { type: 'flow_packet', total: packet.price, hostIds: [host.id], orderId: null, cycle: null, packageId: packet.id });
    return { status: 200, msg: SANDBOX_MESSAGES.flowPacketCreated, data: { invoiceid: invoice.id, total: invoice.total, fid: packet.id } };
  },
};

/**
 * `POST /host/upgrade` (`hostid`, `configoption[<id>]`): an upgrade invoice for the host's new
 * configuration (options not sent keep their current value), settled with `/pay`; paying
 * applies the configuration. Its total is the difference of the two configurations' prices for
 * the host's cycle, never below zero (a downgrade's bill is 0.00; the upstream keeps its own
 * books of any credit). An unpaid upgrade invoice of the host for the same configuration is
 * answered again; one for another configuration is cancelled and replaced. Only active hosts;
 * an unknown option or value is 406, no change 400.
 */
export const hostUpgradeRoute: SandboxRoute = {
  method: 'POST',
  path: '/host/upgrade',
  auth: 'required',
  handle({ state, account, body }) {
    const host = findHost(account, formString(body, 'hostid'));
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.hostNotFound, data: {} };
    if (host.status !== 'Active') return { status: 400, msg: SANDBOX_MESSAGES.hostStateInvalid, data: {} };
    const product = pricedProduct(state.prices, host.productId);
    if (!product) return { status: 406, msg: SANDBOX_MESSAGES.productGone, data: {} };
    const sent = body['configoption'] ?? {};
    if (typeof sent !== 'object' || Array.isArray(sent)) return { status: 406, msg: SANDBOX_MESSAGES.optionInvalid, data: {} };
    const options = product.configGroups.flatMap((group) => group.options);
    for (const id of Object.keys(sent)) {
      if (!options.some((option) => String(option.id) === id)) return { status: 406, msg: SANDBOX_MESSAGES.optionInvalid, data: {} };
    }
    const current: Record<string, string> = {};
    const target: Record<string, string> = {};
    for (const option of options) {
      const key = String(option.id);
      const now = chooseValue(option, host.config[key]);
      const raw = sent[key];
      const next = raw === undefined ? now : chooseValue(option, typeof raw === 'string' ? raw.trim() : undefined);
      if (next === null || (raw !== undefined && typeof raw !== 'string')) return { status: 406, msg: SANDBOX_MESSAGES.optionValueInvalid, data: {} };
      if (now !== null) current[key] = now;
      target[key] = next;
    }
    if (Object.keys(target).every((key) => target[key] === current[key])) return { status: 400, msg: SANDBOX_MESSAGES.upgradeUnchanged, data: {} };
    const same = (config: Record<string, string> | undefined) => config !== undefined && Object.keys(target).every((key) => config[key] === target[key]);
    const pending = unpaidInvoice(state, account, (i) => i.type === 'upgrade' && i.hostIds.includes(host.id));
    if (pending && same(pending.config)) return { status: 200, msg: SANDBOX_MESSAGES.upgradeCreated, data: { invoiceid: pending.id, total: pending.total } };
    if (pending) pending.status = 'Cancelled';
    const difference = money(priceOrder(product, host.billingCycle, target)).minus(priceOrder(product, host.billingCycle, current));
    const total = formatMoney(difference.isNegative() ? 0 : difference);
    const invoice = createInvoice(state, account, { type: 'upgrade', total, hostIds: [host.id], orderId: null, cycle: null, packageId: null, config: target });
    return { status: 200, msg: SANDBOX_MESSAGES.upgradeCreated, data: { invoiceid: invoice.id, total } };
  },
};
