import { createHash } from 'node:crypto';
import type pg from 'pg';

/* The text of a statement, below both ways to it: `db/sql.ts` (sqlRows, inTransaction) and `Database.read` (db/sequelize.ts). */

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

/** What pg's `query` takes for a text or a prepared statement. */
export function queryConfig(sql: string | Statement, values: unknown[]): pg.QueryConfig {
  return typeof sql === 'string' ? { text: sql, values } : { text: sql.text, name: sql.name, values };
}

/** A statement that changes rows (a data-modifying CTE included); `FOR UPDATE` in a CTE counts too, harmlessly. */
export const WRITE_TEXT = /^\s*(INSERT|UPDATE|DELETE|MERGE)\b|^\s*WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b/i;
