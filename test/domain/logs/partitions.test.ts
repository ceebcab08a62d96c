import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { dropLogPartitionsBefore, ensureLogPartitions, logPartitions, PARTITION_MONTHS_AHEAD } from '../../../domain/logs/partitions.js';
import { cleanUpLogs } from '../../../domain/logs/retention.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

async function sql<T extends object>(text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

const monthName = (table: string, date: Date) => `${table}_p${date.toISOString().slice(0, 7).replace('-', '')}`;
const monthsFromNow = (n: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + n, 1));
};

describe('monthly partitions of the request and plugin runtime logs', () => {
  it('the migration made the months ahead, and the daily task makes the ones missing, idempotently', async () => {
    const names = (await logPartitions(platform.deps, 'api_request_logs')).map((p) => p.name);
    for (let n = 0; n <= PARTITION_MONTHS_AHEAD; n++) expect(names).toContain(monthName('api_request_logs', monthsFromNow(n)));
    expect(names).toContain(monthName('api_request_logs', monthsFromNow(-12)));

    // The furthest month gone (as if the migration had run a month ago): the task makes it again, and only it.
    const furthest = monthName('plugin_runtime_logs', monthsFromNow(PARTITION_MONTHS_AHEAD));
    await sql(`ALTER TABLE plugin_runtime_logs DETACH PARTITION ${furthest}`);
    await sql(`DROP TABLE ${furthest}`);
    expect(await ensureLogPartitions(platform.deps)).toEqual({ api_request_logs_partitions_created: 0, plugin_runtime_logs_partitions_created: 1 });
    expect((await logPartitions(platform.deps, 'plugin_runtime_logs')).map((p) => p.name)).toContain(furthest);
    expect(await ensureLogPartitions(platform.deps)).toEqual({ api_request_logs_partitions_created: 0, plugin_runtime_logs_partitions_created: 0 });
  });

  it('loses no row written while partitions are made or detached', async () => {
    const months = [1, 2, 3].map((n) => monthName('api_request_logs', monthsFromNow(n)));
    for (const name of months) {
      await sql(`ALTER TABLE api_request_logs DETACH PARTITION ${name}`);
      await sql(`DROP TABLE ${name}`);
    }
    await sql(`INSERT INTO api_request_logs (method, route, status, duration_ms, created_at) VALUES ('GET', '/doomed', 200, 1, now() - interval '200 days')`);
    const writes = Array.from({ length: 40 }, (_, i) =>
      sql(`INSERT INTO api_request_logs (method, route, status, duration_ms, request_id) VALUES ('GET', '/during', 200, 1, $1)`, [`during-${i}`]),
    );
    const [made, dropped] = await Promise.all([
      ensureLogPartitions(platform.deps),
      dropLogPartitionsBefore(platform.deps, 'api_request_logs', new Date(Date.now() - 150 * 86_400_000)),
      ...writes,
    ]);
    expect(made).toMatchObject({ api_request_logs_partitions_created: 3 });
    expect(dropped.rows).toBeGreaterThanOrEqual(1);
    const [during] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE route = '/during'`);
    expect(during?.n).toBe(40);
    // A row of a month made just now goes in.
    await sql(`INSERT INTO api_request_logs (method, route, status, duration_ms, created_at) VALUES ('GET', '/ahead', 200, 1, $1)`, [monthsFromNow(3)]);
    const [ahead] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${months[2]} WHERE route = '/ahead'`);
    expect(ahead?.n).toBe(1);
  });

  it('retention drops the months wholly past it and keeps the others, rows and all', async () => {
    const old = new Date(Date.now() - 75 * 86_400_000);
    await sql(
      `INSERT INTO api_request_logs (method, route, status, duration_ms, created_at) SELECT 'GET', '/old', 200, 1, $1::timestamptz FROM generate_series(1, 5)`,
      [old],
    );
    await sql(`INSERT INTO api_request_logs (method, route, status, duration_ms) VALUES ('GET', '/new', 200, 1)`);
    await sql(`INSERT INTO plugin_runtime_logs (domain, plugin_slug, actor_type, action, status, duration_ms, created_at) VALUES ('addons', 'p', 'system', 'old', 'success', 1, $1)`, [old]);
    const oldMonth = monthName('api_request_logs', old);
    expect((await logPartitions(platform.deps, 'api_request_logs')).map((p) => p.name)).toContain(oldMonth);

    const summary = await cleanUpLogs(platform.deps);
    expect(summary.api_request_logs_deleted).toBeGreaterThanOrEqual(5);
    expect(summary.plugin_runtime_logs_deleted).toBeGreaterThanOrEqual(1);
    const left = await logPartitions(platform.deps, 'api_request_logs');
    expect(left.map((p) => p.name)).not.toContain(oldMonth);
    // Every month left ends after the cutoff (30 days): nothing wholly past the retention remains, and this month stays.
    const cutoff = Date.now() - platform.deps.config.retention.apiRequestLogDays * 86_400_000;
    for (const p of left) expect(p.upper_bound.getTime()).toBeGreaterThan(cutoff);
    expect(left.map((p) => p.name)).toContain(monthName('api_request_logs', monthsFromNow(0)));
    const [rows] = await sql<{ old: number; recent: number }>(
      `SELECT count(*) FILTER (WHERE route = '/old')::int AS old, count(*) FILTER (WHERE route = '/new')::int AS recent FROM api_request_logs`,
    );
    expect(rows).toEqual({ old: 0, recent: 1 });
    const [tables] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class WHERE relname = $1`, [oldMonth]);
    expect(tables?.n).toBe(0);
  });

  it('the admin clean-up drops whole months and deletes the rest of the cut in batches', async () => {
    await sql(`INSERT INTO api_request_logs (method, route, status, duration_ms, created_at) VALUES ('GET', '/hour-old', 200, 1, now() - interval '2 hours')`);
    await sql(`INSERT INTO api_request_logs (method, route, status, duration_ms) VALUES ('GET', '/fresh', 200, 1)`);
    const { cleanUpLogType } = await import('../../../domain/logs/clean-up.js');
    const { deleted } = await cleanUpLogType(platform.deps, 'api', 0, new Date(Date.now() - 3_600_000));
    expect(deleted).toBeGreaterThanOrEqual(1);
    const routes = (await sql<{ route: string }>(`SELECT route FROM api_request_logs WHERE route IN ('/hour-old', '/fresh')`)).map((r) => r.route);
    expect(routes).toEqual(['/fresh']);
  });
});
