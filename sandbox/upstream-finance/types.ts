import type { FormValue } from './body.js';

export type SandboxAccountInput = { username: string; apiKey: string };

export type UpstreamFinanceSandboxOptions = {
  /** 0 (the default) picks a free port. */
  port?: number;
  accounts?: SandboxAccountInput[];
  /** Lifetime of issued JWTs; default 7200 (two hours, like the real upstream). */
  tokenTtlSeconds?: number;
};

export type FaultMode = 'html500' | 'maintenance' | 'timeout';

export type SandboxCounters = {
  /** Calls per request path (control calls excluded), including failed and rejected ones. */
  paths: Record<string, number>;
  /** Successful logins. */
  logins: number;
  /** Data calls answered with status 405 (token missing, invalid, expired or revoked). */
  rejectedTokens: number;
  /** Catalogue reads answered as an anonymous visitor (no valid token). */
  anonymousCatalogueReads: number;
};

export type UpstreamFinanceSandboxControl = {
  /** Every token issued so far becomes invalid (as if it had expired). */
  expireTokens(): void;
  setLatency(ms: number): void;
  /** The next `count` calls (control calls excluded) fail in the given way. */
  failNext(count: number, mode: FaultMode): void;
  counters(): SandboxCounters;
  resetCounters(): void;
  /** Orders placed per downstream reference (filled by the buying endpoints of a later issue). */
  purchases(): Record<string, number>;
  /** Replaces the hosts of an account with `count` generated hosts. */
  seedHosts(count: number, username?: string): void;
  setCredit(amount: string, username?: string): void;
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
};
