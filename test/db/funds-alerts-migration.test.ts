import { describe, expect, it } from 'vitest';
import { createMigrator } from '../../db/migrate.js';
import { withPgClient } from '../../scripts/lib/postgres.js';
import { migrationDatabase } from '../helpers/migration-database.js';

const target = migrationDatabase();
const { url } = target;

describe('migration 0036 (funds alerts into admin_alerts)', () => {
  it('copies every funds alert into its admin alert with the episode as detail, keeps the old table, and allows one open shortage per supplier', async () => {
    const migrator = createMigrator(target.db.sequelize);
    await migrator.up({ to: '0035-task-indexes' });
    await withPgClient(url, (c) =>
      c.query(`
        SET session_replication_role = replica;
        INSERT INTO supplier_funds_alerts (id, supplier_id, kind, occasion, balance, needed, message, workflow_id, created_at, resolved_at) VALUES
          (1, 7, 'shortage', '2026-11-01T00:00:00Z', '1.00', '50.00', 'short once', 'provision:9', '2026-11-01T00:00:00Z', '2026-11-01T01:00:00Z'),
          (2, 7, 'shortage', '2026-11-02T00:00:00Z', '0.00', '60.00', 'short again', 'renew:INV1', '2026-11-02T00:00:00Z', NULL),
          (3, 8, 'runway', '2026-11-02', '10.00', '99.00', 'runway short', NULL, '2026-11-02T00:00:00Z', NULL);
        -- Alert 2 was raised with its row (as 0032 onwards did); 1 and 3 predate the alerts.
        INSERT INTO admin_alerts (kind, alert_key, severity, title, message, subject) VALUES ('funds_short', 'funds-short:2', 'critical', 't', 'short again', '{"supplier_id":7}');`),
    );
    await migrator.up({ to: '0036-funds-alerts-in-admin-alerts' });
    const rows = await withPgClient(
      url,
      async (c) =>
        (await c.query<{ kind: string; alert_key: string; detail: Record<string, unknown>; created_at: Date }>(`SELECT kind, alert_key, detail, created_at FROM admin_alerts ORDER BY alert_key`)).rows,
    );
    expect(rows.map((r) => [r.kind, r.alert_key])).toEqual([
      ['funds_short', 'funds-short:1'],
      ['funds_short', 'funds-short:2'],
      ['runway_short', 'runway:3'],
    ]);
    expect(rows[0]!.detail).toMatchObject({ supplier_id: 7, balance: '1.00', needed: '50.00', workflow_id: 'provision:9' });
    expect(rows[0]!.detail['ended_at']).not.toBeNull();
    expect(rows[1]!.detail).toMatchObject({ supplier_id: 7, balance: '0.00', needed: '60.00', workflow_id: 'renew:INV1', ended_at: null });
    expect(rows[2]!.detail).toMatchObject({ supplier_id: 8, occasion: '2026-11-02', needed: '99.00' });
    expect(rows[0]!.created_at.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    // Expand, then contract: the old table stays (a later release drops it).
    const kept = await withPgClient(url, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM supplier_funds_alerts')).rows[0]?.n);
    expect(kept).toBe(3);
    // A second open shortage of supplier 7 is refused; the release before, writing no detail, is not.
    await expect(
      withPgClient(url, (c) => c.query(`INSERT INTO admin_alerts (kind, alert_key, title, message, detail) VALUES ('funds_short', 'funds-short:7:x', 't', 'm', '{"supplier_id":7,"ended_at":null}')`)),
    ).rejects.toThrow(/admin_alerts_open_funds_short/);
    await withPgClient(url, (c) => c.query(`INSERT INTO admin_alerts (kind, alert_key, title, message) VALUES ('funds_short', 'funds-short:4', 't', 'm')`));
  });
});
