import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Transaction } from 'sequelize';
import { enterTransaction, inAdminWrite, noteCreatedRow, pendingAuditOpen, writePendingAudit } from '../lib/request-context.js';
import { isTransactionConflict, TRANSACTION_CONFLICT_ATTEMPTS } from './pg-errors.js';
import type { Database } from './sequelize.js';

/**
 * A statement of a hot path, prepared once per connection: PostgreSQL parses and plans it on
 * its first use on a connection and afterwards only binds and executes it (a money payment runs
 * a handful of them; parsing and planning each one again cost the database more CPU than
 * running it). Only for fixed texts written in the code (a text built from input, or one with a
 * varying number of parameters, stays a plain string): every distinct text is one prepared
 * statement on every pooled connection for the connection's life.
 */
export type Statement = { readonly text: string; readonly name: string };

export function statement(text: string): Statement {
  return { text, name: `s_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}` };
}

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

/** What pg's `query` takes for a text or a prepared statement. */
export function queryConfig(sql: string | Statement, values: unknown[]): pg.QueryConfig {
  return typeof sql === 'string' ? { text: sql, values } : { text: sql.text, name: sql.name, values };
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

/** A statement that changes rows (a data-modifying CTE included); `FOR UPDATE` in a CTE counts too, harmlessly. */
export const WRITE_TEXT = /^\s*(INSERT|UPDATE|DELETE|MERGE)\b|^\s*WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b/i;

export async function sqlOne<T extends object>(deps: SqlDeps, sql: string | Statement, bind: unknown[], tx?: Tx): Promise<T | null> {
  const rows = await sqlRows<T>(deps, sql, bind, tx);
  return rows[0] ?? null;
}

/**
 * Runs `work` in a transaction on a pooled connection of its own (READ COMMITTED; the row
 * locks give the ordering): BEGIN, work, COMMIT, or ROLLBACK on any error. Before COMMIT, the
 * current request's pending admin audit row, if any, is inserted in the same transaction. A connection whose
 * ROLLBACK fails is destroyed instead of going back to the pool.
 */
export async function inTransaction<T>(deps: SqlDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  // An admin write never answers 500 for a deadlock (e.g. on the audit chain's head): run it again whole.
  const attempts = inAdminWrite() ? TRANSACTION_CONFLICT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transactionOnce(deps, work);
    } catch (err) {
      if (attempt >= attempts || !isTransactionConflict(err)) throw err;
    }
  }
}

async function transactionOnce<T>(deps: SqlDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  const pool = deps.db.sequelize.connectionManager;
  const client = (await pool.getConnection({ type: 'write' })) as pg.ClientBase;
  let healthy = true;
  let committed = false;
  let audited: ((committed: boolean) => void) | null = null;
  const leave = enterTransaction();
  try {
    await client.query('BEGIN');
    const result = await work({ connection: client });
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
