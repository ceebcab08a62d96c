import type { Logger } from '../../lib/logger.js';
import { listenForNotifications } from '../../lib/pg-listener.js';

export const SETTINGS_CHANNEL = 'settings_invalidate';

/** One stored row: a plain value (JSON) or a sealed secret. */
export type StoredSetting = { key: string; value: unknown; sealed_value: string | null };

export type SettingsCache = {
  /** Every stored row, or undefined when nothing trustworthy is held. */
  get(): Map<string, StoredSetting> | undefined;
  /** Taken before loading, handed back to `set`: a load that raced an invalidation is not kept. */
  ticket(): number;
  set(ticket: number, rows: Map<string, StoredSetting>): void;
  invalidate(): void;
  close(): Promise<void>;
};

/**
 * The settings table, held whole per process (it is small and read on many requests: the
 * 40301 rules, fees, limits). A save `pg_notify`s `settings_invalidate` in its transaction and
 * every process LISTENs, so a change is seen everywhere as soon as it commits; while the
 * listener is down the cache is bypassed (every read goes to the database).
 */
export function createSettingsCache(options: { databaseUrl: string; logger: Logger }): SettingsCache {
  let rows: Map<string, StoredSetting> | undefined;
  let generation = 0;
  const invalidate = () => {
    generation += 1;
    rows = undefined;
  };
  const listener = listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: SETTINGS_CHANNEL,
    logger: options.logger,
    name: 'settings cache',
    onNotification: invalidate,
    onReset: invalidate,
  });
  return {
    get: () => (listener.isListening() ? rows : undefined),
    ticket: () => generation,
    set(ticket, loaded) {
      if (listener.isListening() && ticket === generation) rows = loaded;
    },
    invalidate,
    close: () => listener.close(),
  };
}
