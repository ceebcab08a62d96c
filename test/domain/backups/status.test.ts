import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupStatus, checkWalArchive, watchBackupStatus } from '../../../domain/backups/status.js';
import { downstreamTokenFor } from '../../../domain/upstream-work/provision/downstream.js';
import { metricsRegistry } from '../../../lib/metrics.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * The backup figures on a server without archiving (the test server): no archive yet, so the
 * archive age is unknown and nothing is failing; a recorded base backup gives its age. The
 * archive under load, its failure alert and a restore run on the cluster (test/cluster/).
 */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

async function gauge(name: string): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value;
}

describe('backup status: dashboard figures, gauges, archive check', () => {
  it('answers null ages and -1 gauges before any backup, then the newest backup age', async () => {
    const token = await platform.rootToken();
    const unwatch = watchBackupStatus(platform.deps);
    try {
      const before = await platform.api.get('/api/v2/admin/dashboard', { token });
      expect(before.body.data.state.extras).toMatchObject({ backup_age_seconds: null, wal_archived_age_seconds: null, wal_archive_failing: 0 });
      expect(await gauge('database_backup_age_seconds')).toBe(-1);
      expect(await gauge('wal_archive_last_success_age_seconds')).toBe(-1);
      expect(await gauge('wal_archive_failing')).toBe(0);

      await platform.deps.db.read(
        `INSERT INTO database_backups (label, started_at, finished_at, start_lsn, stop_lsn, size_bytes, location)
         VALUES ('test', now() - interval '2 hours', now() - interval '1 hour', '0/1', '0/2', 1, '/backups/test')`,
      );
      const after = await platform.api.get('/api/v2/admin/dashboard', { token });
      expect(after.body.data.state.extras.backup_age_seconds).toBeGreaterThanOrEqual(3600);
      expect((await backupStatus(platform.deps)).backup_age_seconds).toBeGreaterThanOrEqual(3600);
      // The gauge reads again once its 5 s cache has gone: a new watch starts afresh.
      unwatch();
      const rewatch = watchBackupStatus(platform.deps);
      expect(await gauge('database_backup_age_seconds')).toBeGreaterThanOrEqual(3600);
      rewatch();
    } finally {
      unwatch();
    }
  });

  it('raises no alert while the archiver has not failed', async () => {
    expect(await checkWalArchive(platform.deps)).toMatchObject({ failing: false, raised: false });
    const [row] = await platform.deps.db.read<{ n: string }>(`SELECT count(*) AS n FROM admin_alerts WHERE kind = 'backup_archive'`);
    expect(Number(row?.n)).toBe(0);
  });

  it('derives the same downstream reference for the same service, another for another', () => {
    const service = { id: 7, invoiceNo: 'INV-1', createdMicros: '1764349200000000' };
    const token = downstreamTokenFor('k'.repeat(32), service);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(downstreamTokenFor('k'.repeat(32), { ...service })).toBe(token);
    expect(downstreamTokenFor('k'.repeat(32), { ...service, createdMicros: '1764349200000001' })).not.toBe(token);
    expect(downstreamTokenFor('x'.repeat(32), service)).not.toBe(token);
  });
});
