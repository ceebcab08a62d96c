import { QueryTypes, type Transaction } from 'sequelize';
import type { DomainDeps } from '../deps.js';

/**
 * A parameterised statement (`$1`, `$2`, …) in the given transaction; answers the rows
 * (of a SELECT or of a `RETURNING`). Money writes are raw SQL so that each step is one round
 * trip and the locking order is explicit: payment, then invoice, then account.
 */
export async function sqlRows<T extends object>(deps: DomainDeps, sql: string, bind: unknown[], transaction?: Transaction): Promise<T[]> {
  return deps.db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, ...(transaction ? { transaction } : {}) });
}

export async function sqlOne<T extends object>(deps: DomainDeps, sql: string, bind: unknown[], transaction?: Transaction): Promise<T | null> {
  const rows = await sqlRows<T>(deps, sql, bind, transaction);
  return rows[0] ?? null;
}

/** Runs `work` in a new transaction (READ COMMITTED; row locks give the ordering). */
export function inTransaction<T>(deps: DomainDeps, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return deps.db.sequelize.transaction(work);
}
