import type { DomainDeps } from '../../deps.js';
import { sqlOne, type Tx } from '../../../db/sql.js';

export type LockedAccount = { user_id: number; balance: string; last_seq: number };

const SELECT_FOR_UPDATE = 'SELECT user_id, balance, last_seq FROM user_accounts WHERE user_id = $1 FOR UPDATE';

/**
 * The user's cash account, locked for the rest of the transaction (opened at zero on first
 * use). Every balance change happens under this lock, so concurrent payments queue here.
 */
export async function lockAccount(deps: DomainDeps, userId: number, transaction: Tx): Promise<LockedAccount> {
  const found = await sqlOne<LockedAccount>(deps, SELECT_FOR_UPDATE, [userId], transaction);
  if (found) return found;
  await sqlOne(deps, 'INSERT INTO user_accounts (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING RETURNING user_id', [userId], transaction);
  const opened = await sqlOne<LockedAccount>(deps, SELECT_FOR_UPDATE, [userId], transaction);
  if (!opened) throw new Error(`account of user ${userId} could not be opened`);
  return opened;
}
