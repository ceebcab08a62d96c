import type { Sequelize } from 'sequelize';

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
