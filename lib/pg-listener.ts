import pg from 'pg';
import type { Logger } from './logger.js';

export type PgListener = {
  /** True only while the LISTEN connection is up: a cache must not be trusted otherwise. */
  isListening(): boolean;
  close(): Promise<void>;
};

export type PgListenerOptions = {
  databaseUrl: string;
  /** A plain identifier (LISTEN takes no bind parameter). */
  channel: string;
  logger: Logger;
  /** Named in the warning when the connection drops. */
  name: string;
  onNotification(payload: string | undefined): void;
  /**
   * Called when the connection is lost and again once LISTEN is in place: notifications sent
   * in between were missed, so whatever they would have invalidated must be dropped.
   */
  onReset(): void;
};

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/**
 * A dedicated PostgreSQL connection that LISTENs on one channel for cross-process cache
 * invalidation, reconnecting with backoff (0.5 s doubling to 30 s) when it drops. Writers
 * `pg_notify` in the same transaction as their change, so a notification arrives only for a
 * committed change; a reader that sees `isListening() === false` bypasses its cache.
 */
export function listenForNotifications(options: PgListenerOptions): PgListener {
  if (!CHANNEL.test(options.channel)) throw new Error(`invalid LISTEN channel: ${options.channel}`);
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retryDelay = 500;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: options.databaseUrl });
    client = c;
    const lost = (err?: unknown) => {
      if (!listening && client !== c) return;
      listening = false;
      options.onReset();
      client = null;
      c.removeAllListeners();
      // A late 'error' from the dying client must not become an unhandled event.
      c.on('error', () => {});
      c.end().catch(() => {});
      if (closed) return;
      options.logger.warn({ err }, `${options.name} listener lost; cache bypassed until it reconnects`);
      setTimeout(() => void connect(), retryDelay).unref();
      retryDelay = Math.min(retryDelay * 2, 30_000);
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (msg) => options.onNotification(msg.payload));
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
      if (closed) {
        await c.end().catch(() => {});
        return;
      }
      options.onReset();
      listening = true;
      retryDelay = 500;
    } catch (err) {
      lost(err);
    }
  };
  void connect();

  return {
    isListening: () => listening,
    async close() {
      closed = true;
      listening = false;
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
