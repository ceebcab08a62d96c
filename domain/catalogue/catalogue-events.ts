import type { Transaction } from 'sequelize';
import { onCommit } from '../../db/commit-hooks.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { CATALOGUE_CHANNEL } from './catalogue-cache.js';

/**
 * Announces a catalogue change to every API process (see `createCatalogueCache`). Call it in
 * the transaction of the change: the notification is delivered only if it commits, and the
 * local cache is cleared again after commit (a read racing the transaction may have re-cached).
 */
export async function publishCatalogueChange(deps: DomainDeps, transaction?: Transaction): Promise<void> {
  deps.catalogueCache?.invalidate();
  await sqlRows(deps, 'SELECT pg_notify($1, $2)', [CATALOGUE_CHANNEL, '{}'], transaction);
  if (transaction) onCommit(transaction, () => deps.catalogueCache?.invalidate());
}
