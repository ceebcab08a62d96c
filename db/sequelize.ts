import pg from 'pg';
import { Sequelize, type Transaction, type TransactionOptions } from 'sequelize';
import { enterTransaction, noteCreatedRow, pendingAuditOpen, writePendingAudit } from '../lib/request-context.js';
import type { Logger } from '../lib/logger.js';
import { queryConfig, WRITE_TEXT, type Statement } from './statement.js';
import { defineModels, type Models } from './models/index.js';
import { retryOnConflict } from './pg-errors.js';
import { closeCommitHooks, openCommitHooks } from './commit-hooks.js';

export type Database = {
  sequelize: Sequelize;
  models: Models;
  /**
   * A parameterised read on a connection of the same pool, without Sequelize's per-query work
   * (options cloning, a captured stack, retry wrapper, bind rewriting). For hot read paths only;
   * no transaction, rows as pg returns them (with Sequelize's type parsers).
   */
  read<T extends pg.QueryResultRow>(sql: string | Statement, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  url: string;
  poolMax?: number;
  logger?: Logger;
};

export function createDatabase(options: DatabaseOptions): Database {
  const sequelize = new Sequelize(options.url, {
    dialect: 'postgres',
    dialectModule: pg,
    logging: options.logger ? (sql) => options.logger?.trace({ sql }, 'sql') : false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    timezone: '+00:00',
  });
  auditManagedTransactions(sequelize);
  auditAutocommitWrites(sequelize);
  // A model create during an admin write names the created row (the target of a create whose path names none).
  sequelize.addHook('afterCreate', (instance) => {
    noteCreatedRow((instance.constructor as { getTableName?: () => unknown }).getTableName?.()?.toString() ?? '', instance.get('id'));
  });
  const models = defineModels(sequelize);
  const read = async <T extends pg.QueryResultRow>(sql: string | Statement, params: unknown[] = []): Promise<T[]> => {
    const pool = sequelize.connectionManager;
    // The postgres dialect's pooled connections are pg clients (typed `object` by Sequelize).
    const client = (await pool.getConnection({ type: 'read' })) as pg.ClientBase;
    try {
      return (await client.query<T>(queryConfig(sql, params))).rows;
    } finally {
      // A client whose connection failed is marked invalid by Sequelize and dropped on the next acquire.
      pool.releaseConnection(client);
    }
  };
  return { sequelize, models, read, close: () => sequelize.close() };
}

/**
 * Every managed transaction (`sequelize.transaction(async (t) => ...)`, not nested in another)
 * inserts the current request's pending admin audit row after its work and before its COMMIT
 * (`writePendingAudit`, lib/request-context.ts): an admin change commits with its audit row or
 * not at all; after COMMIT it runs what was given to `onCommit` (`db/commit-hooks.ts`). Wrapped
 * once here, where the database is made, so no caller can forget it.
 * Unmanaged transactions (`await sequelize.transaction()`) are not used in this code base.
 */
function auditManagedTransactions(sequelize: Sequelize): void {
  const original = sequelize.transaction.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  const wrapped = (first?: unknown, second?: unknown): Promise<unknown> => {
    const work = (typeof first === 'function' ? first : second) as ((t: Transaction) => Promise<unknown>) | undefined;
    const options = (typeof first === 'function' ? undefined : first) as TransactionOptions | undefined;
    if (typeof work !== 'function' || options?.transaction) return original(first, second);
    const once = (): Promise<unknown> => {
      let settle: ((committed: boolean) => void) | null = null;
      let opened: Transaction | null = null;
      const audited = async (t: Transaction) => {
        opened = t;
        openCommitHooks(t);
        const result = await work(t);
        settle = await writePendingAudit((sql, bind) => sequelize.query(sql, { bind, transaction: t }));
        return result;
      };
      const leave = enterTransaction();
      const close = (committed: boolean) => {
        leave?.(committed);
        settle?.(committed);
        if (opened) closeCommitHooks(opened, committed);
      };
      return (options ? original(options, audited) : original(audited)).then(
        (result) => {
          close(true);
          return result;
        },
        (err: unknown) => {
          close(false);
          throw err;
        },
      );
    };
    return retryOnConflict(once);
  };
  sequelize.transaction = wrapped as typeof sequelize.transaction;
}

const WRITE_TYPES = new Set(['INSERT', 'UPDATE', 'BULKUPDATE', 'DELETE', 'BULKDELETE', 'UPSERT']);

/**
 * A write outside any transaction (a model's `create`/`update`/`save`/`destroy`, or a
 * `sequelize.query` INSERT/UPDATE/DELETE without `transaction`) made while an admin write's audit
 * row is still waiting runs in a transaction of its own, with the row: the change and its audit
 * row commit together there too. Elsewhere (no request, not an admin write, row already written)
 * the statement runs as before; the check is one AsyncLocalStorage lookup.
 */
function auditAutocommitWrites(sequelize: Sequelize): void {
  const original = sequelize.query.bind(sequelize) as (sql: unknown, options?: Record<string, unknown>) => Promise<unknown>;
  const wrapped = (sql: unknown, options?: Record<string, unknown>): Promise<unknown> => {
    if (options?.transaction || !pendingAuditOpen()) return original(sql, options);
    const text = typeof sql === 'string' ? sql : ((sql as { query?: unknown } | null)?.query ?? '');
    const writes = WRITE_TYPES.has(String(options?.type ?? '')) || (typeof text === 'string' && WRITE_TEXT.test(text));
    if (!writes) return original(sql, options);
    return sequelize.transaction((transaction) => original(sql, { ...options, transaction }));
  };
  sequelize.query = wrapped as typeof sequelize.query;
}
