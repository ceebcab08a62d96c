import { randomBytes } from 'node:crypto';
import { buildSandboxHost, type SandboxHost } from './hosts-data.js';
import type { FaultMode, SandboxAccountInput, SandboxCounters, UpstreamFinanceSandboxOptions } from './types.js';

export type AccountState = {
  uid: number;
  username: string;
  apiKey: string;
  credit: string;
  email: string;
  phone: string;
  hosts: SandboxHost[];
};

/** Everything the sandbox remembers; the buying endpoints of a later issue add their own maps here. */
export type SandboxState = {
  accounts: Map<string, AccountState>;
  tokenTtlSeconds: number;
  tokenSecret: Uint8Array;
  /** Bumped by "expire all tokens": a token of an older generation is refused. */
  tokenGeneration: number;
  latencyMs: number;
  faults: { remaining: number; mode: FaultMode };
  counters: SandboxCounters;
  /** Orders per downstream reference, so tests can prove nothing was bought twice. */
  purchases: Map<string, number>;
  nextHostId: number;
  /** Aborted on stop, releasing hanging requests. */
  stopped: AbortController;
};

export const DEFAULT_SANDBOX_ACCOUNT: SandboxAccountInput = { username: 'reseller@example.com', apiKey: 'sandbox-api-key-0001' };

export function emptyCounters(): SandboxCounters {
  return { paths: {}, logins: 0, rejectedTokens: 0, anonymousCatalogueReads: 0 };
}

export function generateHosts(state: SandboxState, count: number): SandboxHost[] {
  const hosts: SandboxHost[] = [];
  for (let index = 0; index < count; index += 1) {
    hosts.push(buildSandboxHost(state.nextHostId, index));
    state.nextHostId += 1;
  }
  return hosts;
}

export function createSandboxState(options: UpstreamFinanceSandboxOptions): SandboxState {
  const state: SandboxState = {
    accounts: new Map(),
    tokenTtlSeconds: options.tokenTtlSeconds ?? 7200,
    tokenSecret: randomBytes(32),
    tokenGeneration: 1,
    latencyMs: 0,
    faults: { remaining: 0, mode: 'html500' },
    counters: emptyCounters(),
    purchases: new Map(),
    nextHostId: 5001,
    stopped: new AbortController(),
  };
  const accounts = options.accounts && options.accounts.length > 0 ? options.accounts : [DEFAULT_SANDBOX_ACCOUNT];
  accounts.forEach((input, index) => {
    state.accounts.set(input.username, {
      uid: 1001 + index,
      username: input.username,
      apiKey: input.apiKey,
      credit: '10000.00',
      email: input.username.includes('@') ? input.username : `${input.username}@example.com`,
      phone: `1380000${String(1000 + index).padStart(4, '0')}`,
      hosts: generateHosts(state, 3),
    });
  });
  return state;
}

export function findAccount(state: SandboxState, username?: string): AccountState {
  const account = username === undefined ? state.accounts.values().next().value : state.accounts.get(username);
  if (!account) throw new Error(`sandbox account not found: ${username ?? '(first)'}`);
  return account;
}
