/**
 * Callback nonces seen by this process within the clock window. A replay across processes is
 * harmless: a callback only asks the platform to query, and the state is decided on the query.
 */
const MAX_ENTRIES = 10_000;
const seen = new Map<string, number>();

export function acceptNonce(key: string, nowMs: number, ttlMs: number): boolean {
  for (const [k, expiresAt] of seen) {
    if (expiresAt <= nowMs) seen.delete(k);
  }
  if (seen.has(key)) return false;
  if (seen.size >= MAX_ENTRIES) {
    const oldest = seen.keys().next().value;
    if (oldest !== undefined) seen.delete(oldest);
  }
  seen.set(key, nowMs + ttlMs);
  return true;
}
