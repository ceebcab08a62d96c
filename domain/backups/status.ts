import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { raiseAdminAlert } from '../economics/alerts.js';
import { watchBackups } from '../../lib/metrics.js';

/**
 * What an admin and the metrics know of the backups (docs/production.md "Back up"): the age of
 * the newest base backup (`database_backups`, written by `npm run cluster -- backup`) and the
 * server's WAL archiver (`pg_stat_archiver`: the last segment archived, the last failure). A
 * restore can reach any instant from the newest backup's end to the last archived segment.
 */
export type BackupStatus = {
  /** Seconds since the newest base backup finished; null when none was ever taken. */
  backup_age_seconds: number | null;
  /** Seconds since the archiver last archived a segment; null when it never did (archiving off). */
  wal_archived_age_seconds: number | null;
  /** The last archive attempt failed (no success since the last failure). */
  wal_archive_failing: boolean;
  last_archived_at: Date | null;
  last_failed_at: Date | null;
  failed_count: number;
};

const STATUS = `
  SELECT (SELECT floor(extract(epoch FROM now() - max(finished_at)))::int FROM database_backups) AS backup_age_seconds,
         floor(extract(epoch FROM now() - a.last_archived_time))::int AS wal_archived_age_seconds,
         (a.last_failed_time IS NOT NULL AND (a.last_archived_time IS NULL OR a.last_failed_time > a.last_archived_time)) AS wal_archive_failing,
         a.last_archived_time AS last_archived_at, a.last_failed_time AS last_failed_at, a.failed_count::int AS failed_count
    FROM pg_stat_archiver a`;

export async function backupStatus(deps: DomainDeps): Promise<BackupStatus> {
  const row = await sqlOne<BackupStatus>(deps, STATUS, []);
  if (!row) throw new Error('pg_stat_archiver returned no row');
  return row;
}

/**
 * Task `backups.check_wal_archive` (each heartbeat): an archive attempt that failed with no
 * success since raises one admin alert per failure instant (`wal-archive-failed:<time>`), so a
 * failing archiver is reported once and again only after it recovered and failed anew.
 */
export async function checkWalArchive(deps: DomainDeps): Promise<{ failing: boolean; raised: boolean; failed_count: number }> {
  const status = await backupStatus(deps);
  if (!status.wal_archive_failing || !status.last_failed_at) return { failing: false, raised: false, failed_count: status.failed_count };
  const raised = await raiseAdminAlert(deps, {
    kind: 'backup_archive',
    key: `wal-archive-failed:${status.last_failed_at.toISOString()}`,
    severity: 'critical',
    title: 'WAL 归档失败',
    message: `数据库 WAL 归档失败（累计 ${status.failed_count} 次），此后提交的数据无法按时间点恢复；请检查归档目录的空间与权限（docs/production.md “Back up”）。`,
    subject: { last_failed_at: status.last_failed_at.toISOString(), last_archived_at: status.last_archived_at?.toISOString() ?? null },
  });
  return { failing: true, raised, failed_count: status.failed_count };
}

/** Serves the backup gauges (`database_backup_age_seconds`, …) from this process's database; returns the way to stop. */
export function watchBackupStatus(deps: DomainDeps): () => void {
  return watchBackups(async () => {
    const s = await backupStatus(deps);
    return { backupAgeSeconds: s.backup_age_seconds, walArchivedAgeSeconds: s.wal_archived_age_seconds, walArchiveFailing: s.wal_archive_failing };
  });
}
