import type pg from 'pg';
import type { Transaction } from 'sequelize';
import { enterTransaction, noteCreatedRow, pendingAuditOpen, writePendingAudit } from '../lib/request-context.js';
import { closeCommitHooks, openCommitHooks } from './commit-hooks.js';
import { retryOnConflict } from './pg-errors.js';
import type { Database } from './sequelize.js';
import { queryConfig, statement, WRITE_TEXT, type Statement } from './statement.js';

export { statement, type Statement };

/** Where a fragment puts the value named `name`: answers its `$n` (the same name, the same number). */
export type Param<N extends string> = (name: N) => string;

/** A statement with named parameters: `values` answers the values in the order of their numbers. */
export type NamedStatement<N extends string> = Statement & { values(values: Readonly<Record<N, unknown>>): unknown[] };

/**
 * A prepared statement assembled from fragments of several files (a CTE another area exports,
 * `commissionCtes`) with named parameters: each fragment writes `${p('name')}` where a value
 * goes and the first use of a name numbers it, so no file knows another file's parameter
 * numbers. Every value of the text is named (no `$1` written by hand). Built once, at module
 * load, so the text stays fixed; the caller runs it with `s.values({ name: value, … })`. `N`
 * (every name used, the fragments' included) must be given: without it, no name is accepted.
 */
export function namedStatement<N extends string = never>(build: (p: Param<N>) => string): NamedStatement<N> {
  const names: N[] = [];
  const text = build((name) => {
    const at = names.indexOf(name);
    return `$${at >= 0 ? at + 1 : names.push(name)}`;
  });
  return { ...statement(text), values: (values) => names.map((name) => values[name]) };
}

/** A column list (`a, b, c`, as the models' `*_COLUMNS`) qualified by a table alias: `x.a, x.b, x.c`. */
export function qualified(columns: string, alias: string): string {
  return columns
    .split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
}

/**
 * The bound values of a statement built piece by piece (filters of a list): `param(value)`
 * appends the value and answers its placeholder (`$3`), so conditions added in any order stay
 * numbered right. Keep the answer to use one value twice.
 */
export function sqlParams(): { values: unknown[]; param: (value: unknown) => string } {
  const values: unknown[] = [];
  return {
    values,
    param: (value) => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/** What the helpers need: the database (a `DomainDeps` is one). */
export type SqlDeps = { readonly db: Database };

/**
 * A money transaction: the pg client it runs on. A Sequelize transaction is one too (its
 * `connection`), so code that must call other domains inside (the catalogue's quote) can use
 * `inSequelizeTransaction`; everything else uses the lighter `inTransaction`.
 */
export type Tx = { readonly connection: unknown } | Transaction;

function clientOf(tx: Tx): pg.ClientBase {
  const client = (tx as { connection?: pg.ClientBase }).connection;
  if (!client || typeof client.query !== 'function') throw new Error('transaction has no connection');
  return client;
}

/**
 * A parameterised statement (`$1`, `$2`, …); answers the rows (of a SELECT or of a
 * `RETURNING`). In a transaction it runs on that transaction's own connection, straight
 * through pg: money writes are one round trip each, without Sequelize's per-query work, and
 * the locking order stays explicit in the SQL (payment, then invoice, then account). Outside
 * a transaction it is a pooled autocommit statement. Rows come with the pool's type parsers
 * (NUMERIC as a two-digit string, timestamps as Date).
 */
export async function sqlRows<T extends object>(deps: SqlDeps, sql: string | Statement, bind: unknown[], tx?: Tx): Promise<T[]> {
  if (tx) {
    const rows = (await clientOf(tx).query<T & pg.QueryResultRow>(queryConfig(sql, bind))).rows;
    noteInserted(sql, rows);
    return rows;
  }
  // A write outside a transaction during an admin call: in a transaction of its own, with the call's audit row.
  if (pendingAuditOpen() && WRITE_TEXT.test(typeof sql === 'string' ? sql : sql.text)) {
    return inTransaction(deps, (own) => sqlRows<T>(deps, sql, bind, own));
  }
  return deps.db.read<T & pg.QueryResultRow>(sql, bind);
}

const INSERT_INTO = /^\s*INSERT\s+INTO\s+"?([a-z_][a-z0-9_]*)/i;

/** The first row an INSERT answers, as a candidate audit target of an admin create (`noteCreatedRow`). */
function noteInserted(sql: string | Statement, rows: object[]): void {
  const first = rows[0] as { id?: unknown } | undefined;
  if (first?.id === undefined) return;
  const table = INSERT_INTO.exec(typeof sql === 'string' ? sql : sql.text)?.[1];
  if (table) noteCreatedRow(table.toLowerCase(), first.id);
}

export async function sqlOne<T extends object>(deps: SqlDeps, sql: string | Statement, bind: unknown[], tx?: Tx): Promise<T | null> {
  const rows = await sqlRows<T>(deps, sql, bind, tx);
  return rows[0] ?? null;
}

/**
 * Runs `work` in a transaction on a pooled connection of its own (READ COMMITTED; the row
 * locks give the ordering): BEGIN, work, COMMIT, or ROLLBACK on any error. Before COMMIT, the
 * current request's pending admin audit row, if any, is inserted in the same transaction; after
 * COMMIT, what was given to `onCommit(tx, …)` (`db/commit-hooks.ts`) runs. A connection whose
 * ROLLBACK fails is destroyed instead of going back to the pool.
 */
export async function inTransaction<T>(deps: SqlDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  return retryOnConflict(() => transactionOnce(deps, work));
}

async function transactionOnce<T>(deps: SqlDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  const pool = deps.db.sequelize.connectionManager;
  const client = (await pool.getConnection({ type: 'write' })) as pg.ClientBase;
  let healthy = true;
  let committed = false;
  let audited: ((committed: boolean) => void) | null = null;
  const leave = enterTransaction();
  const tx: Tx = { connection: client };
  openCommitHooks(tx);
  try {
    await client.query('BEGIN');
    const result = await work(tx);
    // An admin write's audit row commits with the change (lib/request-context.ts).
    audited = await writePendingAudit((sql, bind) => client.query(sql, bind));
    await client.query('COMMIT');
    committed = true;
    audited?.(true);
    return result;
  } catch (err) {
    audited?.(false);
    try {
      await client.query('ROLLBACK');
    } catch {
      healthy = false;
    }
    throw err;
  } finally {
    leave?.(committed);
    closeCommitHooks(tx, committed);
    if (healthy) pool.releaseConnection(client);
    else await pool.destroyConnection(client);
  }
}

/**
 * A Sequelize-managed transaction, for work that calls Sequelize-based domain code inside (the
 * pending admin audit row is written before its COMMIT by the wrapper in `db/sequelize.ts`).
 */
export function inSequelizeTransaction<T>(deps: SqlDeps, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return deps.db.sequelize.transaction(work);
}
