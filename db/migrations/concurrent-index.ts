import type { Sequelize } from 'sequelize';
import type { Migration } from './types.js';

/**
 * An index on a live table, built `CONCURRENTLY` (docs/CONVENTIONS.md "Migrations: expand, then
 * contract"): one statement of its own (the runner wraps no transaction around a migration, and a
 * concurrent build cannot run inside one). A build cut off earlier leaves an invalid index of the
 * name behind, which `IF NOT EXISTS` would keep: it is dropped and built again.
 */
export async function buildIndexConcurrently(sequelize: Sequelize, name: string, on: string, options: { unique?: boolean } = {}): Promise<void> {
  const [rows] = await sequelize.query(
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`,
    { bind: [name] },
  );
  const found = (rows as Array<{ valid: boolean }>)[0];
  if (found && !found.valid) await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await sequelize.query(`CREATE ${options.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${on}`);
}

/** An index of a migration that only adds indexes: its name and what follows `ON`. */
export type ConcurrentIndex = { name: string; on: string };

/**
 * A migration that only adds indexes to live tables: each built concurrently in order
 * (`buildIndexConcurrently`), dropped concurrently in reverse order on the way down.
 */
export function concurrentIndexesMigration(name: string, indexes: ReadonlyArray<ConcurrentIndex>): Migration {
  return {
    name,
    async up({ context: sequelize }) {
      for (const index of indexes) await buildIndexConcurrently(sequelize, index.name, index.on);
    },
    async down({ context: sequelize }) {
      for (const index of [...indexes].reverse()) await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
    },
  };
}
