import { formatMoney, sumMoney } from '../../../lib/money.js';
import { createInvoice } from '../billing.js';
import { buildCartItem } from '../cart-item.js';
import { nowSeconds } from '../cycles.js';
import { createPurchasedHost } from '../host-factory.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { cartKey, isAnswer, readDownstreamReference } from '../reference.js';
import type { SandboxRoute } from '../route-types.js';
import { bump, type AccountState, type SandboxOrder, type SandboxState } from '../state.js';
import type { SandboxAnswer } from '../types.js';

function orderData(state: SandboxState, order: SandboxOrder) {
  const invoice = state.invoices.get(order.invoiceId);
  return {
    orderid: order.id,
    invoiceid: order.invoiceId,
    hostid: order.hostIds,
    total: invoice?.total ?? '0.00',
    paid: invoice?.status === 'Paid' ? 1 : 0,
  };
}

/** The order of a downstream token, or a refusal when another account used the token. */
function existingOrder(state: SandboxState, account: AccountState, token: string): { order: SandboxOrder | null } | { refusal: SandboxAnswer } {
  const order = state.orders.get(token) ?? null;
  if (order && order.username !== account.username) return { refusal: { status: 406, msg: SANDBOX_MESSAGES.referenceTaken, data: {} } };
  return { order };
}

/**
 * `POST /cart/clear` with the downstream reference: empties that reference's cart. When an
 * order already exists for the reference, the answer carries it (`hostid`, `invoiceid`,
 * `paid`), so the reseller continues instead of buying again.
 */
export const cartClearRoute: SandboxRoute = {
  method: 'POST',
  path: '/cart/clear',
  auth: 'required',
  handle({ state, account, body }) {
    const reference = readDownstreamReference(body);
    if (isAnswer(reference)) return reference;
    const existing = existingOrder(state, account, reference.token);
    if ('refusal' in existing) return existing.refusal;
    const order = existing.order;
    state.carts.delete(cartKey(account.username, reference.token));
    if (!order) return { status: 200, msg: SANDBOX_MESSAGES.cartCleared, data: {} };
    const data = orderData(state, order);
    return { status: 200, msg: SANDBOX_MESSAGES.orderExists, data: { ...data, hostid: order.hostIds[0], hostids: order.hostIds } };
  },
};

/** `POST /cart/add_to_shop`: one checked line into the cart of the downstream reference. */
export const cartAddRoute: SandboxRoute = {
  method: 'POST',
  path: '/cart/add_to_shop',
  auth: 'required',
  handle({ state, account, body }) {
    const reference = readDownstreamReference(body);
    if (isAnswer(reference)) return reference;
    const item = buildCartItem(state, body);
    if ('status' in item) return item;
    const key = cartKey(account.username, reference.token);
    const cart = [...(state.carts.get(key) ?? []), item];
    state.carts.set(key, cart);
    return { status: 200, msg: SANDBOX_MESSAGES.cartAdded, data: { count: cart.length, total: formatMoney(sumMoney(cart.map((line) => line.amount))) } };
  },
};

/**
 * `POST /cart/settle` with the downstream reference: order, invoice and pending hosts, once
 * per reference. A repeat answers the existing order and creates nothing (only
 * `settleAttempts` counts it).
 */
export const cartSettleRoute: SandboxRoute = {
  method: 'POST',
  path: '/cart/settle',
  auth: 'required',
  handle({ state, account, body }) {
    const reference = readDownstreamReference(body);
    if (isAnswer(reference)) return reference;
    bump(state.ledger.settleAttempts, reference.token);
    const existing = existingOrder(state, account, reference.token);
    if ('refusal' in existing) return existing.refusal;
    if (existing.order) return { status: 200, msg: SANDBOX_MESSAGES.orderExists, data: orderData(state, existing.order) };
    const key = cartKey(account.username, reference.token);
    const cart = state.carts.get(key) ?? [];
    if (cart.length === 0) return { status: 400, msg: SANDBOX_MESSAGES.cartEmpty, data: {} };
    for (const line of cart) {
      const stock = state.stock.get(line.productId);
      if (stock?.control && stock.qty < 1) return { status: 400, msg: SANDBOX_MESSAGES.outOfStock, data: {} };
    }
    const now = nowSeconds();
    const hosts = cart.map((line) => createPurchasedHost(state, line, now));
    for (const line of cart) {
      const stock = state.stock.get(line.productId);
      if (stock?.control) stock.qty -= 1;
    }
    account.hosts.push(...hosts);
    const orderId = state.nextOrderId;
    state.nextOrderId += 1;
    const hostIds = hosts.map((h) => h.id);
    const invoice = createInvoice(state, account, { type: 'product', total: formatMoney(sumMoney(cart.map((line) => line.amount))), hostIds, orderId, cycle: null, packageId: null });
    const order: SandboxOrder = {
      id: orderId,
      username: account.username,
      token: reference.token,
      downstreamUrl: reference.url,
      downstreamId: reference.id,
      invoiceId: invoice.id,
      hostIds,
      status: 'Pending',
      createdAt: now,
    };
    state.orders.set(reference.token, order);
    state.carts.delete(key);
    bump(state.ledger.purchases, reference.token);
    const created = orderData(state, order);
    return { status: 200, msg: SANDBOX_MESSAGES.orderCreated, data: state.omitSettleTotal ? { ...created, total: undefined } : created };
  },
};
