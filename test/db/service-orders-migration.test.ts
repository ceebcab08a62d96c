import { describe, expect, it } from 'vitest';
import { createMigrator } from '../../db/migrate.js';
import { withPgClient } from '../../scripts/lib/postgres.js';
import { migrationDatabase } from '../helpers/migration-database.js';

const target = migrationDatabase();
const { url } = target;

/** The relations (tables, indexes, sequences) and constraints whose names start with `prefix`. */
async function namedLike(prefix: string): Promise<string[]> {
  return withPgClient(url, async (c) => {
    const { rows } = await c.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE starts_with(relname, $1) AND relnamespace = 'public'::regnamespace
       UNION SELECT conname FROM pg_constraint WHERE starts_with(conname, $1) ORDER BY 1`,
      [prefix],
    );
    return rows.map((r) => r.name);
  });
}

describe('migration 0026 (service_upstream_orders → service_orders)', () => {
  it('keeps the rows and their ids, and renames the sequence, constraints and indexes with the table', async () => {
    const migrator = createMigrator(target.db.sequelize);
    await migrator.up({ to: '0025-personal-access-tokens' });
    // Rows as a running platform has them (the parents are beside the point: foreign keys are not checked here).
    await withPgClient(url, (c) =>
      c.query(`
        SET session_replication_role = replica;
        INSERT INTO service_upstream_orders (invoice_id, service_id, user_id, kind, billing_period, months, package_id, amount, workflow_id, status, stage)
          VALUES (11, 21, 31, 'renew', 'monthly', 1, NULL, '66.00', 'renew:INV11', 'awaiting_admin', 'awaiting_admin'),
                 (12, 22, 31, 'traffic_package', NULL, NULL, 5, '10.00', 'traffic:INV12', 'pending', 'queued');`),
    );
    const before = await namedLike('service_upstream_orders');
    expect(before).toContain('service_upstream_orders_one_open');
    await migrator.up({ to: '0026-service-orders-name' });
    expect(await namedLike('service_upstream_orders')).toEqual([]);
    const after = await namedLike('service_orders');
    expect(after).toEqual(before.map((n) => n.replace('service_upstream_orders', 'service_orders')).sort());
    const rows = await withPgClient(url, async (c) => (await c.query<{ id: number; invoice_id: number; status: string }>('SELECT id, invoice_id, status FROM service_orders ORDER BY id')).rows);
    expect(rows).toEqual([
      { id: 1, invoice_id: 11, status: 'awaiting_admin' },
      { id: 2, invoice_id: 12, status: 'pending' },
    ]);
    // The id sequence goes on, and the rules still hold under their new names.
    const next = await withPgClient(url, async (c) => {
      await c.query('SET session_replication_role = replica');
      return (await c.query<{ id: number }>(`INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, amount, workflow_id) VALUES (13, 23, 31, 'renew', 'monthly', 1, '66.00', 'renew:INV13') RETURNING id`)).rows[0]?.id;
    });
    expect(next).toBe(3);
    const duplicate = withPgClient(url, async (c) => {
      await c.query('SET session_replication_role = replica');
      await c.query(`INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, amount, workflow_id) VALUES (14, 21, 31, 'renew', 'monthly', 1, '66.00', 'renew:INV14')`);
    });
    await expect(duplicate).rejects.toThrow(/service_orders_one_open/);
  });
});
