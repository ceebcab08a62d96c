import { describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createMigrator } from '../../db/migrate.js';
import { migrationDatabase } from '../helpers/migration-database.js';

const target = migrationDatabase();

const select = <T extends object>(sql: string, bind: unknown[] = []) => target.db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });

describe('migration 0034 (log partitions)', () => {
  it('moves the request and plugin runtime logs into month partitions with their rows, ids and sequence', async () => {
    const migrator = createMigrator(target.db.sequelize);
    await migrator.up({ to: '0032-admin-alerts' });
    await target.db.sequelize.query(`
      INSERT INTO plugins (domain, slug, key, name, version, manifest) VALUES ('addons', 'p', 'p', 'p', '1.0.0', '{}');
      INSERT INTO api_request_logs (method, route, status, duration_ms, request_id, created_at) VALUES
        ('GET', '/two-years-ago', 200, 1, 'r1', now() - interval '730 days'),
        ('POST', '/today', 201, 2, 'r2', now());
      INSERT INTO plugin_runtime_logs (domain, plugin_id, plugin_slug, actor_type, action, status, duration_ms, created_at) VALUES
        ('addons', (SELECT id FROM plugins WHERE slug = 'p'), 'p', 'system', 'old', 'success', 1, now() - interval '400 days'),
        ('addons', (SELECT id FROM plugins WHERE slug = 'p'), 'p', 'system', 'new', 'success', 1, now());
    `);
    const before = await select<{ id: string; route: string; created_at: Date }>('SELECT id::text AS id, route, created_at FROM api_request_logs ORDER BY id');
    await migrator.up();

    const [kind] = await select<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE relname = 'api_request_logs'`);
    expect(kind?.relkind).toBe('p');
    expect(await select('SELECT id::text AS id, route, created_at FROM api_request_logs ORDER BY id')).toEqual(before);
    // Every month from the oldest row to three months ahead has its partition.
    const [months] = await select<{ n: number }>(`SELECT count(*)::int AS n FROM log_partitions('api_request_logs')`);
    expect(months?.n).toBeGreaterThanOrEqual(24 + 3);
    // The sequence goes on past the copied ids; the old release's insert (no id) still works.
    const [inserted] = await select<{ id: string }>(`INSERT INTO api_request_logs (method, route, status, duration_ms) VALUES ('GET', '/after', 200, 1) RETURNING id::text AS id`);
    expect(Number(inserted?.id)).toBeGreaterThan(Math.max(...before.map((r) => Number(r.id))));

    expect((await select<{ action: string }>('SELECT action FROM plugin_runtime_logs ORDER BY id')).map((r) => r.action)).toEqual(['old', 'new']);
    // The foreign key stayed: an uninstalled plugin's rows keep their slug and lose the id.
    await target.db.sequelize.query(`DELETE FROM plugins WHERE slug = 'p'`);
    expect(await select('SELECT plugin_id, plugin_slug FROM plugin_runtime_logs')).toEqual([
      { plugin_id: null, plugin_slug: 'p' },
      { plugin_id: null, plugin_slug: 'p' },
    ]);
    await expect(target.db.sequelize.query(`INSERT INTO plugin_runtime_logs (domain, plugin_id, plugin_slug, actor_type, action, status, duration_ms) VALUES ('addons', 999999, 'x', 'system', 'a', 'success', 1)`)).rejects.toThrow(/foreign key/);
    await expect(target.db.sequelize.query(`INSERT INTO plugin_runtime_logs (domain, plugin_slug, actor_type, action, status, duration_ms) VALUES ('addons', 'x', 'robot', 'a', 'success', 1)`)).rejects.toThrow(/check constraint/);
  });
});
