import type { PriceChange } from './prices.js';
import type { FormValue } from './body.js';

/** `unavailable`: the console websocket answers 503. `auth_failed`: the server expects another password. */
export type ConsoleFaultMode = 'unavailable' | 'auth_failed';

export type ConsoleTicket = { hostId: number; password: string; expiresAt: number };

export type SandboxAccountInput = { username: string; apiKey: string };

export type UpstreamFinanceSandboxOptions = {
  /** 0 (the default) picks a free port. */
  port?: number;
  accounts?: SandboxAccountInput[];
  /** Lifetime of issued JWTs; default 7200 (two hours, like the real upstream). */
  tokenTtlSeconds?: number;
  /** The console's framebuffer size; default 320×240. */
  console?: { width?: number; height?: number };
  /**
   * A file the sandbox keeps its state in (accounts, hosts, orders, invoices, id counters), read
   * at start and written after changes and at stop, so a restarted sandbox goes on where it was
   * (`npm run dev` keeps it in its data folder). Without it, every start begins anew (tests).
   */
  stateFile?: string;
  /** Every account's credit at the first start (default `10000.00`); a state file keeps what it became. */
  credit?: string;
  /** Active hosts each account starts with (default 3; ids from 5001). */
  hostsPerAccount?: number;
  /**
   * This upstream's own price list over the shared catalogue, per product (as `setPrices` takes
   * it): a second sandbox sells the same products at other prices. `resetPrices` returns to it.
   */
  prices?: Record<number, PriceChange>;
};

/**
 * html500: an HTML error page with HTTP 500. maintenance: status 503 in the JSON envelope.
 * timeout: the request hangs (until the client gives up or the sandbox stops).
 * token_rejected: status 405 as if the token had expired (never applied to the login itself).
 * refused: status 400 in the JSON envelope, a business refusal (“操作被拒绝”): nothing happened.
 * not_found: an HTML 404 page, as an upstream without that endpoint answers (e.g. `/billing/list`).
 */
export type FaultMode = 'html500' | 'maintenance' | 'timeout' | 'token_rejected' | 'refused' | 'not_found' | 'out_of_stock' | 'product_gone';

export type FaultOptions = {
  /** Only requests to this exact path (e.g. `/cart/settle`); every path when absent. */
  path?: string;
  /**
   * Run the handler first (the order, payment or renewal is committed), then answer with the
   * fault instead of the real answer: the caller cannot know whether it worked.
   */
  afterCommit?: boolean;
};

export type SandboxCounters = {
  /** Calls per request path (control calls excluded), including failed and rejected ones. */
  paths: Record<string, number>;
  /** Successful logins. */
  logins: number;
  /** Data calls answered with status 405 (token missing, invalid, expired, revoked or injected). */
  rejectedTokens: number;
  /** Catalogue reads answered as an anonymous visitor (no valid token). */
  anonymousCatalogueReads: number;
};

/** One request to the custom module surface, as the sandbox saw it. */
export type ModuleCallRecord = {
  method: 'GET' | 'POST';
  path: string;
  /** The scheme of the `Authorization` header (`JWT` expected). */
  scheme: string;
  hostId: number | null;
  /** Page requests: the `id` and `key` query parameters and whether `jwt` equals the header token. */
  query: { id: string | null; key: string | null; jwtMatchesHeader: boolean } | null;
  func: string | null;
};

/**
 * The proof counters. Keys are the downstream token, the invoice id, the host id,
 * `<host id>:<package id>` and `<host id>:<func>`. Never reset by `resetCounters`.
 */
export type SandboxLedger = {
  /** Orders created per downstream token (a repeated settle creates none). */
  purchases: Record<string, number>;
  /** Every `/cart/settle` call per downstream token, repeats included. */
  settleAttempts: Record<string, number>;
  /** Pay calls that took money from the account credit, per invoice (partial payments count). */
  pays: Record<string, number>;
  /** Renewals applied (renewal invoice paid, due date moved) per host. */
  renewals: Record<string, number>;
  /** Configuration changes applied (upgrade invoice paid, host config changed) per host. */
  upgrades: Record<string, number>;
  /** Traffic packages applied (invoice paid, traffic added) per `<host id>:<package id>`. */
  trafficPurchases: Record<string, number>;
  /** Successful host actions per `<host id>:<func>`. */
  hostActions: Record<string, number>;
  /** Successful custom module actions per `<host id>:<func>`. */
  moduleActions: Record<string, number>;
  /** Every custom module request (page or action), in order. */
  moduleCalls: ModuleCallRecord[];
  /** Console websocket sessions that passed VNC Authentication, per host id. */
  consoleSessions: Record<string, number>;
  /** Console websocket sessions whose VNC Authentication answer was wrong, per host id. */
  consoleAuthFailures: Record<string, number>;
};

/** How long a paid host stays `Pending`: host-detail polls and/or milliseconds after payment. */
export type ProvisioningDelay = { polls: number; ms: number };

/** A host as tests may inspect it (read-only snapshot). */
export type SandboxHostView = {
  id: number;
  status: string;
  productId: number;
  billingCycle: string;
  nextDueDate: number;
  bwLimitGb: number;
  extraTrafficGb: number;
  power: string;
  os: string;
  hostname: string;
  /** Option id → sub-option id or quantity; empty for seeded hosts (every option at its default). */
  config: Record<string, string>;
};

/**
 * How the lists (`/host/list`, `/billing/list`) answer their total: `total` (the default),
 * `count`, `sum` with `max_page` (the page count), or not at all (the caller pages until a short page).
 */
export const LIST_TOTAL_SHAPES = ['total', 'count', 'sum', 'none'] as const;
export type ListTotalShape = (typeof LIST_TOTAL_SHAPES)[number];

export type SandboxInvoiceView = { id: number; type: string; status: string; total: string; credit: string; hostIds: number[] };

export type SandboxHostStatus = 'Pending' | 'Active' | 'Suspended' | 'Terminated' | 'Cancelled';

/** A host made or changed by a test: status and due date (unix seconds) are what reconciliation compares. */
export type SandboxHostPatch = { status?: SandboxHostStatus; nextDueDate?: number };

/** A bill made by a test as if someone had bought something on the upstream's own panel (nothing is applied to hosts). */
export type SandboxBillInput = {
  type?: 'product' | 'renew' | 'flow_packet' | 'upgrade';
  status?: 'Unpaid' | 'Paid' | 'Cancelled';
  total: string;
  hostIds?: number[];
  username?: string;
};

export type UpstreamFinanceSandboxControl = {
  /** Every token issued so far becomes invalid (as if it had expired). */
  expireTokens(): void;
  setLatency(ms: number): void;
  /**
   * The next `count` calls (control calls excluded; only `options.path` when given) fail in
   * the given way. Replaces the earlier rule of the same path and phase; `count` 0 removes it.
   */
  failNext(count: number, mode: FaultMode, options?: FaultOptions): void;
  clearFaults(): void;
  counters(): SandboxCounters;
  /** Resets the request counters (`counters()`), not the ledger. */
  resetCounters(): void;
  /** Orders placed per downstream token (same as `ledger().purchases`). */
  purchases(): Record<string, number>;
  ledger(): SandboxLedger;
  /** Replaces the hosts of an account with `count` generated hosts. */
  seedHosts(count: number, username?: string): void;
  setCredit(amount: string, username?: string): void;
  credit(username?: string): string;
  /** Stock of a product: a number turns stock control on with that quantity; null restores the catalogue's stock. */
  setStock(productId: number, qty: number | null): void;
  /**
   * Changes a product's member prices: `cycles` cycle → price (`-1` switches a cycle off),
   * `subs` sub-option id → monthly price. Throws on an unknown product, cycle or sub-option.
   */
  setPrices(productId: number, change: PriceChange): void;
  /** Back to the sandbox's own prices (the catalogue's, under its `prices` option): one product, or all of them. */
  resetPrices(productId?: number): void;
  setProvisioningDelay(delay: Partial<ProvisioningDelay>): void;
  /** The next `count` pay calls apply only half of what is due and answer a plain 200. */
  partialPayments(count: number): void;
  /** Settle answers without the bill's total (on) or with it (off, the default). */
  omitSettleTotal(on: boolean): void;
  /** How the host and bill lists answer their total (`LIST_TOTAL_SHAPES`; `total` by default). */
  answerListTotalAs(shape: ListTotalShape): void;
  host(hostId: number): SandboxHostView | null;
  /** Sets a host's configuration (option id → sub-option id or quantity), as if bought so. */
  setHostConfig(hostId: number, config: Record<string, string>): boolean;
  /** Removes a host from its account (as if the upstream deleted it); false when unknown. */
  removeHost(hostId: number): boolean;
  /** Adds a host to the account that nobody bought through the API (default: `Active`, due in 30 days). */
  addHost(patch?: SandboxHostPatch, username?: string): SandboxHostView;
  /** Sets a host's status and/or due date (unix seconds); null when unknown. */
  updateHost(hostId: number, patch: SandboxHostPatch): SandboxHostView | null;
  /** Adds a bill to the account (default type `renew`, status `Paid`); its `paid_time` is now when paid. */
  addBill(input: SandboxBillInput): SandboxInvoiceView;
  /**
   * The next `count` state actions (`suspend`, `unsuspend`, `terminate`) answer success but
   * change nothing, as an upstream that only queued them would: the host detail still shows the old status.
   */
  deferStateActions(count: number): void;
  invoice(invoiceId: number): SandboxInvoiceView | null;
  /** The upstream voids an unpaid bill (status `Cancelled`: paying it is refused); false when unknown or paid. */
  voidBill(invoiceId: number): boolean;
  /**
   * The next `count` console websocket connections with a valid ticket fail: `unavailable`
   * answers 503 to the upgrade, `auth_failed` expects another password (the VNC Authentication
   * answer is refused). `count` 0 disarms it.
   */
  failConsole(count: number, mode: ConsoleFaultMode): void;
  /** Every VNC password the `vnc` action handed out, oldest first (for leak checks). */
  consolePasswords(): string[];
  /** Closes every open console websocket normally (the host's console went away); answers how many. */
  closeConsoles(): number;
};

export type UpstreamFinanceSandbox = {
  baseUrl: string;
  stop(): Promise<void>;
  control: UpstreamFinanceSandboxControl;
};

/** What a route handler answers; the server wraps it into `{ status, msg, data, ...top }`. */
export type SandboxAnswer = {
  status: number;
  msg: string;
  data: unknown;
  top?: Record<string, unknown>;
};

export type SandboxRequestInput = {
  query: Record<string, string>;
  body: Record<string, FormValue>;
  params: Record<string, string>;
  /** `Authorization` header as sent. */
  authorization: string;
  /** `http://127.0.0.1:<port>` of this sandbox, for URLs it hands out (VNC). */
  origin: string;
};
