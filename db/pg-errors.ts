import { currentRequestContext } from '../lib/request-context.js';

/**
 * The PostgreSQL error under an error thrown by pg or by Sequelize (which wraps it as `parent`
 * / `original`): its SQLSTATE and, for constraint violations, the constraint's name.
 */
export type PgErrorFields = { code: string; constraint: string | null };

export function pgErrorOf(err: unknown): PgErrorFields | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 3; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      const constraint = (e as { constraint?: unknown }).constraint;
      return { code, constraint: typeof constraint === 'string' ? constraint : null };
    }
    e = (e as { parent?: unknown; original?: unknown }).parent ?? (e as { original?: unknown }).original;
  }
  return null;
}

/** SQLSTATEs of a transaction the database aborted for the order it ran in: run whole again, it may pass. */
const CONFLICT_CODES = ['40P01', '40001'];

/** A deadlock (40P01) or serialization failure (40001): the whole transaction may be run again. */
export function isTransactionConflict(err: unknown): boolean {
  const pg = pgErrorOf(err);
  return pg !== null && CONFLICT_CODES.includes(pg.code);
}

/** How often a request's transaction is run again after a deadlock or serialization failure. */
const TRANSACTION_CONFLICT_ATTEMPTS = 5;

/**
 * Runs a whole transaction (`once`) and, while answering a request (admin, client or site), runs
 * it again on a deadlock or serialization failure, up to `TRANSACTION_CONFLICT_ATTEMPTS` times: no
 * request answers 500 for a deadlock (an admin write's on the audit chain's head, a client's
 * between two of its own requests). The aborted attempt committed nothing, so running it again
 * changes nothing twice. Outside a request (an activity, a task) it runs once: Temporal's retry
 * of the activity decides. Both transaction kinds use it (`inTransaction`, db/sql.ts, and every
 * managed `sequelize.transaction`, db/sequelize.ts).
 */
export async function retryOnConflict<T>(once: () => Promise<T>): Promise<T> {
  const attempts = currentRequestContext() ? TRANSACTION_CONFLICT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await once();
    } catch (err) {
      if (attempt >= attempts || !isTransactionConflict(err)) throw err;
    }
  }
}

/**
 * Errors the database gives for the data itself (SQLSTATE class 22, data exception, and 23,
 * integrity constraint violation): the same statement on the same rows fails the same way
 * again, so retrying cannot help.
 */
export function isDeterministicDataError(err: unknown): boolean {
  const pg = pgErrorOf(err);
  return pg !== null && (pg.code.startsWith('22') || pg.code.startsWith('23'));
}
