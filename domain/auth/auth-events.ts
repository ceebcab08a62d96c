import type { Transaction } from 'sequelize';
import { onCommit } from '../../db/commit-hooks.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { AUTH_CHANNEL, type AuthInvalidation } from './principal-cache.js';

/**
 * Announces an auth change (revocation, disable, permission change) to every API process.
 * Inside a transaction the notification is delivered only if it commits.
 */
export async function publishAuthChange(deps: DomainDeps, change: AuthInvalidation, transaction?: Transaction): Promise<void> {
  deps.authCache?.invalidate(change);
  await sqlRows(deps, 'SELECT pg_notify($1, $2)', [AUTH_CHANNEL, JSON.stringify(change)], transaction);
  // Local entries are dropped again after commit: a request racing the transaction may have re-cached.
  if (transaction) onCommit(transaction, () => deps.authCache?.invalidate(change));
}
