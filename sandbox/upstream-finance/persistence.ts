import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PriceOverride } from './prices.js';
import type { AccountState, CartItem, ModuleData, SandboxInvoice, SandboxOrder, SandboxState, StockState } from './state.js';

/**
 * What a real upstream keeps across its restarts: accounts (credit, hosts), carts, orders,
 * invoices, stock, changed prices, module data, the id counters and the token key. Not kept: faults, latency,
 * console sessions and request counters (a test's switches, gone with the process).
 */
type Snapshot = {
  version: 1;
  accounts: Array<Omit<AccountState, 'apiKey'>>;
  tokenSecret: string;
  tokenGeneration: number;
  carts: Array<[string, CartItem[]]>;
  orders: Array<[string, SandboxOrder]>;
  invoices: Array<[number, SandboxInvoice]>;
  stock: Array<[number, StockState]>;
  /** Absent in files written before price changes existed. */
  prices?: Array<[number, PriceOverride]>;
  moduleData: Array<[number, ModuleData]>;
  nextHostId: number;
  nextOrderId: number;
  nextInvoiceId: number;
};

function snapshotOf(state: SandboxState): Snapshot {
  return {
    version: 1,
    accounts: [...state.accounts.values()].map(({ apiKey: _apiKey, ...account }) => account),
    tokenSecret: Buffer.from(state.tokenSecret).toString('base64'),
    tokenGeneration: state.tokenGeneration,
    carts: [...state.carts],
    orders: [...state.orders],
    invoices: [...state.invoices],
    stock: [...state.stock],
    prices: [...state.prices],
    moduleData: [...state.moduleData],
    nextHostId: state.nextHostId,
    nextOrderId: state.nextOrderId,
    nextInvoiceId: state.nextInvoiceId,
  };
}

/**
 * Restores a saved state into a fresh one. Accounts are matched by username: an account the
 * options still name gets back its credit and hosts (its API key stays the one configured now);
 * accounts no longer configured are dropped. A missing file is a first start; an unreadable one
 * is an error (the sandbox would otherwise hand out ids it handed out before).
 */
export function restoreSandboxState(state: SandboxState, file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const saved = JSON.parse(text) as Snapshot;
  if (saved.version !== 1) throw new Error(`unknown upstream sandbox state version in ${file}`);
  for (const account of saved.accounts) {
    const current = state.accounts.get(account.username);
    if (current) state.accounts.set(account.username, { ...account, apiKey: current.apiKey });
  }
  state.tokenSecret = new Uint8Array(Buffer.from(saved.tokenSecret, 'base64'));
  state.tokenGeneration = saved.tokenGeneration;
  state.carts = new Map(saved.carts);
  state.orders = new Map(saved.orders);
  state.invoices = new Map(saved.invoices);
  state.stock = new Map(saved.stock);
  state.prices = new Map(saved.prices ?? []);
  state.moduleData = new Map(saved.moduleData);
  state.nextHostId = Math.max(state.nextHostId, saved.nextHostId);
  state.nextOrderId = Math.max(state.nextOrderId, saved.nextOrderId);
  state.nextInvoiceId = Math.max(state.nextInvoiceId, saved.nextInvoiceId);
  return true;
}

/** Writes the state whole (a temporary file renamed into place: a crash leaves the old or the new one). */
export function saveSandboxState(state: SandboxState, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshotOf(state)));
  renameSync(temporary, file);
}

/** Saves after changes, at most every `delayMs`, and once more when flushed (the sandbox stops). */
export function createStateSaver(state: SandboxState, file: string, delayMs = 200) {
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    saveSandboxState(state, file);
  };
  return {
    changed() {
      timer ??= setTimeout(flush, delayMs);
    },
    flush,
  };
}
