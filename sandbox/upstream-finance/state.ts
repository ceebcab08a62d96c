import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { setMaxListeners } from 'node:events';
import { SANDBOX_CATALOGUE } from './catalogue-data.js';
import { changePrices, type PriceOverride } from './prices.js';
import { DEFAULT_CONSOLE_SIZE } from './console/picture.js';
import { buildSandboxHost, type SandboxHost } from './hosts-data.js';
import type { ConsoleFaultMode, ConsoleTicket, FaultMode, ListTotalShape, ProvisioningDelay, SandboxAccountInput, SandboxCounters, SandboxLedger, UpstreamFinanceSandboxOptions } from './types.js';

export type AccountState = {
  uid: number;
  username: string;
  apiKey: string;
  credit: string;
  email: string;
  phone: string;
  hosts: SandboxHost[];
};

export type FaultRule = { remaining: number; mode: FaultMode; path: string | null; afterCommit: boolean };

export type StockState = { control: boolean; qty: number };

/** One line of a cart: a product with its cycle and config, priced when it was added. */
export type CartItem = { productId: number; cycle: string; config: Record<string, string>; hostname: string; password: string; amount: string };

/** An order, created by `/cart/settle` once per downstream token. */
export type SandboxOrder = {
  id: number;
  username: string;
  token: string;
  downstreamUrl: string;
  downstreamId: string;
  invoiceId: number;
  hostIds: number[];
  status: 'Pending' | 'Active' | 'Cancelled';
  createdAt: number;
};

export type InvoiceType = 'product' | 'renew' | 'flow_packet' | 'upgrade';

export type SandboxInvoice = {
  id: number;
  username: string;
  type: InvoiceType;
  status: 'Unpaid' | 'Paid' | 'Cancelled';
  total: string;
  /** Credit applied so far (partial payments add up until the total is reached). */
  credit: string;
  hostIds: number[];
  orderId: number | null;
  /** Renewals: the cycle bought. */
  cycle: string | null;
  /** Traffic packages: the package bought. */
  packageId: number | null;
  /** Upgrades: the whole target configuration (option id → sub-option id or quantity), applied when paid. */
  config?: Record<string, string>;
  createdAt: number;
  paidAt: number | null;
};

export type ModuleRecord = { id: number } & Record<string, string | number>;

/** What the custom module of a host holds (NAT rules, security group rules, snapshots). */
export type ModuleData = { natRules: ModuleRecord[]; securityRules: ModuleRecord[]; snapshots: ModuleRecord[]; nextId: number };

/** Everything the sandbox remembers. */
export type SandboxState = {
  accounts: Map<string, AccountState>;
  tokenTtlSeconds: number;
  tokenSecret: Uint8Array;
  /** Bumped by "expire all tokens": a token of an older generation is refused. */
  tokenGeneration: number;
  latencyMs: number;
  faults: FaultRule[];
  counters: SandboxCounters;
  /** Proof counters (purchases per downstream token, pays per invoice, …); see `SandboxLedger`. */
  ledger: SandboxLedger;
  /** Cart lines per `<username>\n<downstream token>`. */
  carts: Map<string, CartItem[]>;
  /** Orders per downstream token. */
  orders: Map<string, SandboxOrder>;
  invoices: Map<number, SandboxInvoice>;
  stock: Map<number, StockState>;
  /** Prices changed on command (`/__control/prices`), per product. */
  prices: Map<number, PriceOverride>;
  /** The sandbox's own price list (its `prices` option), what `resetPrices` returns to. */
  ownPrices: Map<number, PriceOverride>;
  provisioningDelay: ProvisioningDelay;
  /** Pay calls still to answer with a partial payment. */
  partialPayments: number;
  /** Settle answers leave out the bill's total (as some upstream versions do): the platform cannot check its funds first. */
  omitSettleTotal: boolean;
  /** How the host and bill lists answer their total. */
  listTotal: ListTotalShape;
  /** State actions (suspend, unsuspend, terminate) still to answer with success while changing nothing. */
  deferredStateActions: number;
  moduleData: Map<number, ModuleData>;
  /** The console websocket: tickets by token, its fault switch, open sessions, picture size, every password issued. */
  console: {
    tickets: Map<string, ConsoleTicket>;
    fault: { remaining: number; mode: ConsoleFaultMode } | null;
    open: Set<WebSocket>;
    size: { width: number; height: number };
    issuedPasswords: string[];
  };
  nextHostId: number;
  nextOrderId: number;
  nextInvoiceId: number;
  /** Aborted on stop, releasing hanging requests. */
  stopped: AbortController;
};

export const DEFAULT_SANDBOX_ACCOUNT: SandboxAccountInput = { username: 'reseller@example.com', apiKey: 'sandbox-api-key-0001' };

export function emptyCounters(): SandboxCounters {
  return { paths: {}, logins: 0, rejectedTokens: 0, anonymousCatalogueReads: 0 };
}

export function emptyLedger(): SandboxLedger {
  return {
    purchases: {},
    settleAttempts: {},
    pays: {},
    renewals: {},
    trafficPurchases: {},
    upgrades: {},
    hostActions: {},
    moduleActions: {},
    moduleCalls: [],
    consoleSessions: {},
    consoleAuthFailures: {},
  };
}

export function bump(counter: Record<string, number>, key: string | number): void {
  counter[String(key)] = (counter[String(key)] ?? 0) + 1;
}

export function catalogueStock(): Map<number, StockState> {
  const stock = new Map<number, StockState>();
  for (const group of SANDBOX_CATALOGUE) for (const product of group.products) stock.set(product.id, { ...product.stock });
  return stock;
}

export function generateHosts(state: SandboxState, count: number): SandboxHost[] {
  const hosts: SandboxHost[] = [];
  for (let index = 0; index < count; index += 1) {
    hosts.push(buildSandboxHost(state.nextHostId, index));
    state.nextHostId += 1;
  }
  return hosts;
}

/** The `prices` option as overrides (checked: an unknown product, cycle or sub-option throws). */
function ownPriceList(prices: UpstreamFinanceSandboxOptions['prices']): Map<number, PriceOverride> {
  const list = new Map<number, PriceOverride>();
  for (const [productId, change] of Object.entries(prices ?? {})) changePrices(list, Number(productId), change);
  return list;
}

export function createSandboxState(options: UpstreamFinanceSandboxOptions): SandboxState {
  const ownPrices = ownPriceList(options.prices);
  const state: SandboxState = {
    accounts: new Map(),
    tokenTtlSeconds: options.tokenTtlSeconds ?? 7200,
    tokenSecret: randomBytes(32),
    tokenGeneration: 1,
    latencyMs: 0,
    faults: [],
    counters: emptyCounters(),
    ledger: emptyLedger(),
    carts: new Map(),
    orders: new Map(),
    invoices: new Map(),
    stock: catalogueStock(),
    prices: structuredClone(ownPrices),
    ownPrices,
    provisioningDelay: { polls: 0, ms: 0 },
    partialPayments: 0,
    omitSettleTotal: false,
    listTotal: 'total',
    deferredStateActions: 0,
    moduleData: new Map(),
    console: {
      tickets: new Map(),
      fault: null,
      open: new Set(),
      size: { width: options.console?.width ?? DEFAULT_CONSOLE_SIZE.width, height: options.console?.height ?? DEFAULT_CONSOLE_SIZE.height },
      issuedPasswords: [],
    },
    nextHostId: 5001,
    nextOrderId: 7001,
    nextInvoiceId: 90001,
    stopped: new AbortController(),
  };
  // Every request held by latency or a hanging fault listens for the stop: hundreds at a time.
  setMaxListeners(0, state.stopped.signal);
  const accounts = options.accounts && options.accounts.length > 0 ? options.accounts : [DEFAULT_SANDBOX_ACCOUNT];
  accounts.forEach((input, index) => {
    state.accounts.set(input.username, {
      uid: 1001 + index,
      username: input.username,
      apiKey: input.apiKey,
      credit: options.credit ?? '10000.00',
      email: input.username.includes('@') ? input.username : `${input.username}@example.com`,
      phone: `1380000${String(1000 + index).padStart(4, '0')}`,
      hosts: generateHosts(state, options.hostsPerAccount ?? 3),
    });
  });
  return state;
}

/** A host of the account, or undefined (another account's host is as good as none). */
export function findHost(account: AccountState, hostId: unknown): SandboxHost | undefined {
  const id = Number(hostId);
  return Number.isInteger(id) ? account.hosts.find((h) => h.id === id) : undefined;
}

export function findHostAnywhere(state: SandboxState, hostId: number): SandboxHost | undefined {
  for (const account of state.accounts.values()) {
    const host = account.hosts.find((h) => h.id === hostId);
    if (host) return host;
  }
  return undefined;
}

export function findAccount(state: SandboxState, username?: string): AccountState {
  const account = username === undefined ? state.accounts.values().next().value : state.accounts.get(username);
  if (!account) throw new Error(`sandbox account not found: ${username ?? '(first)'}`);
  return account;
}
