import { formatMoney, parseMoney } from '../../lib/money.js';
import { findSandboxProduct } from './catalogue-data.js';
import type { ConsoleFaultMode } from './types.js';
import { setFaultRule } from './faults.js';
import { changePrices, type PriceChange, type PriceOverride } from './prices.js';
import { refreshHost } from './provisioning.js';
import { nowSeconds } from './cycles.js';
import { buildSandboxHost, type SandboxHost } from './hosts-data.js';
import { emptyCounters, findAccount, findHostAnywhere, generateHosts, type SandboxInvoice, type SandboxState } from './state.js';
import {
  LIST_TOTAL_SHAPES,
  type FaultMode,
  type FaultOptions,
  type ListTotalShape,
  type ProvisioningDelay,
  type SandboxHostPatch,
  type SandboxHostView,
  type SandboxInvoiceView,
  type UpstreamFinanceSandboxControl,
} from './types.js';

const DAY = 86_400;

function hostView(host: SandboxHost): SandboxHostView {
  return {
    id: host.id,
    status: host.status,
    productId: host.productId,
    billingCycle: host.billingCycle,
    nextDueDate: host.nextDueDate,
    bwLimitGb: host.bwLimitGb,
    extraTrafficGb: host.extraTrafficGb,
    power: host.power,
    os: host.os,
    hostname: host.hostname,
    config: { ...host.config },
  };
}

function invoiceView(invoice: SandboxInvoice): SandboxInvoiceView {
  return { id: invoice.id, type: invoice.type, status: invoice.status, total: invoice.total, credit: invoice.credit, hostIds: [...invoice.hostIds] };
}

function applyPatch(host: SandboxHost, patch: SandboxHostPatch): void {
  if (patch.status !== undefined) {
    host.status = patch.status;
    host.provisioning = null;
  }
  if (patch.nextDueDate !== undefined) host.nextDueDate = nonNegativeInt(patch.nextDueDate, host.nextDueDate);
}

function nonNegativeInt(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value));
}

export function createSandboxControl(state: SandboxState): UpstreamFinanceSandboxControl {
  return {
    expireTokens() {
      state.tokenGeneration += 1;
    },
    setLatency(ms: number) {
      state.latencyMs = Math.max(0, Math.floor(ms));
    },
    failNext(count: number, mode: FaultMode, options?: FaultOptions) {
      setFaultRule(state, count, mode, options);
    },
    clearFaults() {
      state.faults = [];
    },
    counters() {
      return structuredClone(state.counters);
    },
    resetCounters() {
      state.counters = emptyCounters();
    },
    purchases() {
      return { ...state.ledger.purchases };
    },
    ledger() {
      return structuredClone(state.ledger);
    },
    seedHosts(count: number, username?: string) {
      findAccount(state, username).hosts = generateHosts(state, count);
    },
    setCredit(amount: string, username?: string) {
      const value = parseMoney(amount);
      if (!value) throw new Error(`invalid amount: ${amount}`);
      findAccount(state, username).credit = formatMoney(value);
    },
    credit(username?: string) {
      return findAccount(state, username).credit;
    },
    setStock(productId: number, qty: number | null) {
      const product = findSandboxProduct(productId);
      if (!product) throw new Error(`no such product: ${productId}`);
      state.stock.set(productId, qty === null ? { ...product.stock } : { control: true, qty: nonNegativeInt(qty, 0) });
    },
    setPrices(productId: number, change: PriceChange) {
      changePrices(state.prices, productId, change);
    },
    resetPrices(productId?: number) {
      if (productId === undefined) state.prices = structuredClone(state.ownPrices);
      else if (state.ownPrices.has(productId)) state.prices.set(productId, structuredClone(state.ownPrices.get(productId) as PriceOverride));
      else state.prices.delete(productId);
    },
    setProvisioningDelay(delay: Partial<ProvisioningDelay>) {
      state.provisioningDelay = { polls: nonNegativeInt(delay.polls, 0), ms: nonNegativeInt(delay.ms, 0) };
    },
    partialPayments(count: number) {
      state.partialPayments = nonNegativeInt(count, 0);
    },
    omitSettleTotal(on: boolean) {
      state.omitSettleTotal = on;
    },
    answerListTotalAs(shape: ListTotalShape) {
      if (!LIST_TOTAL_SHAPES.includes(shape)) throw new Error(`unknown list total shape: ${String(shape)}`);
      state.listTotal = shape;
    },
    host(hostId: number) {
      const host = findHostAnywhere(state, hostId);
      if (!host) return null;
      refreshHost(host, false);
      return hostView(host);
    },
    addHost(patch: SandboxHostPatch = {}, username?: string) {
      const account = findAccount(state, username);
      const host = buildSandboxHost(state.nextHostId, account.hosts.length);
      state.nextHostId += 1;
      host.status = 'Active';
      host.regDate = nowSeconds();
      host.nextDueDate = nowSeconds() + 30 * DAY;
      applyPatch(host, patch);
      account.hosts.push(host);
      return hostView(host);
    },
    updateHost(hostId: number, patch: SandboxHostPatch) {
      const host = findHostAnywhere(state, hostId);
      if (!host) return null;
      applyPatch(host, patch);
      return hostView(host);
    },
    addBill(input) {
      const account = findAccount(state, input.username);
      const total = parseMoney(input.total);
      if (!total || total.isNegative()) throw new Error(`invalid amount: ${input.total}`);
      const status = input.status ?? 'Paid';
      const now = nowSeconds();
      const invoice: SandboxInvoice = {
        id: state.nextInvoiceId,
        username: account.username,
        type: input.type ?? 'renew',
        status,
        total: formatMoney(total),
        credit: status === 'Paid' ? formatMoney(total) : '0.00',
        hostIds: [...(input.hostIds ?? [])],
        orderId: null,
        cycle: null,
        packageId: null,
        createdAt: now,
        paidAt: status === 'Paid' ? now : null,
      };
      state.nextInvoiceId += 1;
      state.invoices.set(invoice.id, invoice);
      return invoiceView(invoice);
    },
    setHostConfig(hostId: number, config: Record<string, string>) {
      const host = findHostAnywhere(state, hostId);
      if (!host) return false;
      host.config = { ...config };
      return true;
    },
    removeHost(hostId: number) {
      for (const account of state.accounts.values()) {
        const index = account.hosts.findIndex((h) => h.id === hostId);
        if (index >= 0) {
          account.hosts.splice(index, 1);
          return true;
        }
      }
      return false;
    },
    deferStateActions(count: number) {
      state.deferredStateActions = nonNegativeInt(count, 0);
    },
    invoice(invoiceId: number) {
      const invoice = state.invoices.get(invoiceId);
      if (!invoice) return null;
      return invoiceView(invoice);
    },
    voidBill(invoiceId: number) {
      const invoice = state.invoices.get(invoiceId);
      if (!invoice || invoice.status === 'Paid') return false;
      invoice.status = 'Cancelled';
      return true;
    },
    failConsole(count: number, mode: ConsoleFaultMode) {
      const remaining = nonNegativeInt(count, 0);
      state.console.fault = remaining > 0 ? { remaining, mode } : null;
    },
    consolePasswords() {
      return [...state.console.issuedPasswords];
    },
    closeConsoles() {
      const open = [...state.console.open];
      for (const socket of open) socket.close(1000, 'console closed');
      return open.length;
    },
  };
}
