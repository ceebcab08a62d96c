import { createHash } from 'node:crypto';

export type CachedToken = { jwt: string; expiresAt: number; obtainedAt: number };

/** Refresh when less than this is left, so no call goes out with a token about to expire. */
export const REFRESH_AHEAD_MS = 5 * 60 * 1000;

/** Assumed lifetime when the token carries no readable `exp` (the upstream issues two hours). */
export const FALLBACK_LIFETIME_MS = 30 * 60 * 1000;

const tokens = new Map<string, CachedToken>();
const pendingLogins = new Map<string, Promise<CachedToken>>();

export type TokenCacheKeyInput = { supplierId: string | null; providerKey: string; baseUrl: string; account: string; apiKey: string };

/**
 * Per supplier and provider key; the address and credentials are folded in (hashed) so a
 * changed configuration never reuses a token obtained with the old one.
 */
export function tokenCacheKey(input: TokenCacheKeyInput): string {
  const fingerprint = createHash('sha256').update(`${input.baseUrl}\n${input.account}\n${input.apiKey}`).digest('hex').slice(0, 24);
  return `${input.supplierId ?? '-'}:${input.providerKey}:${fingerprint}`;
}

/** The cached token when it still has more than the refresh margin left. */
export function readUsableToken(key: string, now: number = Date.now()): CachedToken | null {
  const token = tokens.get(key);
  if (!token) return null;
  return token.expiresAt - now > REFRESH_AHEAD_MS ? token : null;
}

export function storeToken(key: string, token: CachedToken): void {
  tokens.set(key, token);
}

export function clearToken(key: string): void {
  tokens.delete(key);
}

export function clearAllTokens(): void {
  tokens.clear();
  pendingLogins.clear();
}

/** Concurrent callers of one key share a single login. */
export function shareLogin(key: string, login: () => Promise<CachedToken>): Promise<CachedToken> {
  const pending = pendingLogins.get(key);
  if (pending) return pending;
  const started = login().finally(() => pendingLogins.delete(key));
  pendingLogins.set(key, started);
  return started;
}
