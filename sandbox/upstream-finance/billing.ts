import { formatMoney, money } from '../../lib/money.js';
import { addCycle, nowSeconds } from './cycles.js';
import { findFlowPacket } from './flow-packets.js';
import { SANDBOX_MESSAGES } from './messages.js';
import { startProvisioning } from './provisioning.js';
import { bump, type AccountState, type SandboxInvoice, type SandboxState } from './state.js';
import type { SandboxAnswer } from './types.js';

export type InvoiceInit = Pick<SandboxInvoice, 'type' | 'total' | 'hostIds' | 'orderId' | 'cycle' | 'packageId' | 'config'>;

export function createInvoice(state: SandboxState, account: AccountState, init: InvoiceInit): SandboxInvoice {
  const invoice: SandboxInvoice = { ...init, id: state.nextInvoiceId, username: account.username, status: 'Unpaid', credit: '0.00', createdAt: nowSeconds(), paidAt: null };
  state.nextInvoiceId += 1;
  state.invoices.set(invoice.id, invoice);
  return invoice;
}

export function findInvoice(state: SandboxState, account: AccountState, invoiceId: unknown): SandboxInvoice | undefined {
  const invoice = state.invoices.get(Number(invoiceId));
  return invoice && invoice.username === account.username ? invoice : undefined;
}

/** What a paid invoice does: hosts start provisioning, a renewal moves the due date, an upgrade changes the host's configuration, a package adds traffic. */
function applyPaidInvoice(state: SandboxState, account: AccountState, invoice: SandboxInvoice): void {
  const now = nowSeconds();
  const hosts = account.hosts.filter((h) => invoice.hostIds.includes(h.id));
  if (invoice.type === 'product') {
    for (const order of state.orders.values()) if (order.id === invoice.orderId) order.status = 'Active';
    for (const host of hosts) {
      host.regDate = now;
      host.nextDueDate = addCycle(now, host.billingCycle);
      startProvisioning(state, host, Date.now());
    }
  } else if (invoice.type === 'renew') {
    for (const host of hosts) {
      host.nextDueDate = addCycle(host.nextDueDate > 0 ? host.nextDueDate : now, invoice.cycle ?? host.billingCycle);
      host.billingCycle = invoice.cycle ?? host.billingCycle;
      if (host.status === 'Suspended') host.status = 'Active';
      bump(state.ledger.renewals, host.id);
    }
  } else if (invoice.type === 'upgrade') {
    for (const host of hosts) {
      host.config = { ...(invoice.config ?? host.config) };
      bump(state.ledger.upgrades, host.id);
    }
  } else {
    for (const host of hosts) {
      const packet = findFlowPacket(host, invoice.packageId ?? 0);
      if (!packet) continue;
      host.extraTrafficGb += packet.capacity;
      bump(state.ledger.trafficPurchases, `${host.id}:${packet.id}`);
    }
  }
}

/**
 * Settles an invoice from the account credit. Paid in full: status 1001. With a partial
 * payment due (switch), half of what is owed is taken and the answer is a plain 200 with the
 * bill still unpaid. Not enough credit: business error 400, nothing taken. Already paid: 1001
 * again, nothing taken (the upstream recognises the repeat).
 */
export function payInvoice(state: SandboxState, account: AccountState, invoice: SandboxInvoice): SandboxAnswer {
  if (invoice.status === 'Paid') return { status: 1001, msg: SANDBOX_MESSAGES.invoiceAlreadyPaid, data: { invoiceid: invoice.id, status: 'Paid' } };
  if (invoice.status === 'Cancelled') return { status: 400, msg: SANDBOX_MESSAGES.invoiceCancelled, data: {} };
  const due = money(invoice.total).minus(invoice.credit);
  const partial = state.partialPayments > 0 && due.greaterThan('0.01');
  const portion = partial ? money(formatMoney(due.dividedBy(2))) : due;
  if (money(account.credit).lessThan(portion)) return { status: 400, msg: SANDBOX_MESSAGES.creditInsufficient, data: {} };
  account.credit = formatMoney(money(account.credit).minus(portion));
  invoice.credit = formatMoney(money(invoice.credit).plus(portion));
  bump(state.ledger.pays, invoice.id);
  if (partial) {
    state.partialPayments -= 1;
    return { status: 200, msg: SANDBOX_MESSAGES.creditApplied, data: { invoiceid: invoice.id } };
  }
  invoice.status = 'Paid';
  invoice.paidAt = nowSeconds();
  applyPaidInvoice(state, account, invoice);
  return { status: 1001, msg: SANDBOX_MESSAGES.invoicePaid, data: { invoiceid: invoice.id, status: 'Paid' } };
}
