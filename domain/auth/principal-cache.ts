import { listenForNotifications } from '../../lib/pg-listener.js';
import type { Logger } from '../../lib/logger.js';
import type { AdminPrincipal, ClientPrincipal } from './principals.js';
import { cacheLookups } from '../../lib/metrics.js';

export const AUTH_CHANNEL = 'auth_invalidate';

/** What an auth change invalidates: one session, every session of an account, or everything. */
export type AuthInvalidation =
  | { session_id: string }
  | { surface: 'admin' | 'client'; subject_id: number }
  | { all: true };

/** A payload of `auth_invalidate`; anything unrecognised invalidates everything. */
export function parseAuthInvalidation(payload: string | undefined): AuthInvalidation {
  let value: unknown;
  try {
    value = JSON.parse(payload ?? '');
  } catch {
    return { all: true };
  }
  if (typeof value !== 'object' || value === null) return { all: true };
  if ('session_id' in value && typeof value.session_id === 'string') return { session_id: value.session_id };
  if (
    'surface' in value &&
    (value.surface === 'admin' || value.surface === 'client') &&
    'subject_id' in value &&
    typeof value.subject_id === 'number'
  ) {
    return { surface: value.surface, subject_id: value.subject_id };
  }
  return { all: true };
}

type Entry = { principal: AdminPrincipal | ClientPrincipal; sessionExpiresAt: number; cachedUntil: number };

export type PrincipalCache = {
  get(sessionId: string): AdminPrincipal | ClientPrincipal | null;
  /**
   * Taken before reading a session from the database and handed back to `set`: a result read
   * before a later invalidation (a revocation committing meanwhile) is then not stored.
   */
  ticket(): number;
  set(ticket: number, principal: AdminPrincipal | ClientPrincipal, sessionExpiresAt: Date): void;
  invalidate(change: AuthInvalidation): void;
  close(): Promise<void>;
};

/**
 * Resolved principals per session for a few seconds, so a stream of requests does not query
 * the session, account and role on every call. Revocation stays immediate: the writer
 * invalidates its own cache and NOTIFYs `auth_invalidate` in the same transaction; every other
 * API process LISTENs and drops the entries. While the listener is not connected, the cache
 * is bypassed entirely (a lost notification can never keep a revoked session alive).
 */
export function createPrincipalCache(options: { databaseUrl: string; ttlMs: number; logger: Logger }): PrincipalCache {
  const entries = new Map<string, Entry>();
  // Bumped by every invalidation, so a read that raced it is never stored (see `ticket`).
  let generation = 0;
  const clear = () => {
    generation += 1;
    entries.clear();
  };

  const invalidate = (change: AuthInvalidation) => {
    generation += 1;
    if ('all' in change) return entries.clear();
    if ('session_id' in change) return void entries.delete(change.session_id);
    for (const [id, entry] of entries) {
      if (entry.principal.kind === change.surface && entry.principal.id === change.subject_id) entries.delete(id);
    }
  };

  const listener =
    options.ttlMs > 0
      ? listenForNotifications({
          databaseUrl: options.databaseUrl,
          channel: AUTH_CHANNEL,
          logger: options.logger,
          name: 'auth cache',
          onNotification: (payload) => invalidate(parseAuthInvalidation(payload)),
          onReset: clear,
        })
      : null;
  const listening = () => listener?.isListening() ?? false;

  return {
    get(sessionId) {
      if (!listening()) return null;
      const entry = entries.get(sessionId);
      cacheLookups.inc({ cache: 'principal', result: entry ? 'hit' : 'miss' });
      if (!entry) return null;
      const now = Date.now();
      if (entry.cachedUntil <= now || entry.sessionExpiresAt <= now) {
        entries.delete(sessionId);
        return null;
      }
      return entry.principal;
    },
    ticket: () => generation,
    set(ticket, principal, sessionExpiresAt) {
      if (!listening() || ticket !== generation) return;
      if (entries.size > 50_000) entries.clear();
      entries.set(principal.sessionId, { principal, sessionExpiresAt: sessionExpiresAt.getTime(), cachedUntil: Date.now() + options.ttlMs });
    },
    invalidate,
    async close() {
      await listener?.close();
      clear();
    },
  };
}
