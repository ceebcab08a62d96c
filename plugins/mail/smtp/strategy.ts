import type { MailAccount, MailStrategy } from './config.js';

/** Per plugin key, the next round-robin start. Process-local: good enough to spread load. */
const cursors = new Map<string, number>();

export type IndexedAccount = { index: number; account: MailAccount };

/** Accounts in the order to try: all of them, starting at the strategy's choice. */
export function attemptOrder(key: string, accounts: MailAccount[], strategy: MailStrategy): IndexedAccount[] {
  const indexed = accounts.map((account, index) => ({ index, account }));
  if (strategy !== 'round_robin' || indexed.length < 2) return indexed;
  const start = (cursors.get(key) ?? 0) % indexed.length;
  cursors.set(key, (start + 1) % indexed.length);
  return [...indexed.slice(start), ...indexed.slice(0, start)];
}
