// Point-in-time backups of the cluster's PostgreSQL server (docs/production.md "Back up" and
// "Restore to a point in time"): continuous WAL archiving plus base backups taken with the
// server's low-level API, so nothing but the server itself is needed (no pg_basebackup of the
// server's major version). One server holds the platform's and Temporal's databases: one WAL
// stream, so a restore brings all three back to the same instant.
import { chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { PostgresIds } from './postgres-as-root.js';

/** A quiet server still closes a segment (and so archives it) this often: the most a restore can lose. */
export const ARCHIVE_TIMEOUT_SECONDS = 60;

/** `'<archiveDir>/<name>'` for a shell command of the server (%f, %p are the server's placeholders). */
function quotedPath(archiveDir: string, name: string): string {
  if (/['\n%]/.test(archiveDir)) throw new Error(`WAL archive path must not contain ', % or a newline: ${archiveDir}`);
  return `'${join(archiveDir, name)}'`;
}

/**
 * Server settings of continuous archiving into `archiveDir`: each finished segment copied under
 * a temporary name, flushed, then renamed (a segment is never seen half written); a segment
 * already there succeeds only when it is the same file (a retry after a crash), never overwritten.
 */
export function archiveSettings(archiveDir: string): Record<string, string> {
  const target = quotedPath(archiveDir, '%f');
  const temporary = quotedPath(archiveDir, '%f.tmp');
  return {
    wal_level: 'replica',
    archive_mode: 'on',
    archive_command: `test ! -f ${target} && cp %p ${temporary} && sync ${temporary} && mv ${temporary} ${target} || cmp -s %p ${target}`,
    archive_timeout: String(ARCHIVE_TIMEOUT_SECONDS),
  };
}

/** Settings of the first start of a restored data folder: replay the archive up to `targetTime`, then promote. */
export function recoverySettings(archiveDir: string, targetTime: Date): Record<string, string> {
  return {
    restore_command: `cp ${quotedPath(archiveDir, '%f')} %p`,
    // PostgreSQL's own timestamptz text (it refuses the ISO form with T and Z here).
    recovery_target_time: targetTime.toISOString().replace('T', ' ').replace('Z', '+00'),
    recovery_target_action: 'promote',
  };
}

/** Folders whose contents a base backup leaves out (the server rebuilds them), as pg_basebackup does. */
const EMPTY_FOLDERS = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'backup_label.old', 'tablespace_map', 'tablespace_map.old', 'recovery.signal', 'standby.signal']);

/** Copies a data folder the server is writing: files that vanish meanwhile are skipped (the WAL replays them). */
function copyLiveDataDir(from: string, to: string): number {
  let bytes = 0;
  const walk = (src: string, dst: string, top: boolean) => {
    mkdirSync(dst, { recursive: true, mode: 0o700 });
    let names: string[];
    try {
      names = readdirSync(src);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      if (name.startsWith('pgsql_tmp') || (top && LEFT_OUT.has(name))) continue;
      const source = join(src, name);
      const st = lstatSync(source, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (top && EMPTY_FOLDERS.has(name)) mkdirSync(join(dst, name), { mode: 0o700 });
        else walk(source, join(dst, name), false);
      } else if (st.isFile()) {
        try {
          copyFileSync(source, join(dst, name));
          bytes += st.size;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      } else {
        throw new Error(`base backup: ${source} is neither a file nor a folder (tablespaces are not supported)`);
      }
    }
  };
  walk(from, to, true);
  mkdirSync(join(to, 'pg_wal', 'archive_status'), { recursive: true, mode: 0o700 });
  return bytes;
}

export type BaseBackup = {
  /** Its folder under the backups folder (named by its start, UTC). */
  dir: string;
  label: string;
  startedAt: Date;
  /** A restore may target any instant from here on. */
  finishedAt: Date;
  startLsn: string;
  stopLsn: string;
  bytes: number;
};

const META = 'backup.json';

/**
 * A base backup of the running server into `<backupsDir>/<start>/`: `pg_backup_start` (fast
 * checkpoint) on one connection held open throughout, a copy of the data folder, then
 * `pg_backup_stop` (which waits until the WAL the backup needs is archived) and its backup_label
 * written into the copy. The folder appears under its final name only once complete.
 */
export async function takeBaseBackup(options: { adminUrl: string; dataDir: string; backupsDir: string; label?: string }): Promise<BaseBackup> {
  const client = new pg.Client({ connectionString: options.adminUrl });
  await client.connect();
  try {
    const mode = await client.query<{ archive_mode: string }>('SHOW archive_mode');
    if (mode.rows[0]?.archive_mode !== 'on') throw new Error('WAL archiving is off on this server: a base backup without the archive cannot be restored');
    const startedAt = new Date();
    const label = options.label ?? `platform-${startedAt.toISOString()}`;
    const started = await client.query<{ lsn: string }>('SELECT pg_backup_start($1, true)::text AS lsn', [label]);
    const name = startedAt.toISOString().replace(/[:.]/g, '-');
    const partial = join(options.backupsDir, `.${name}.partial`);
    const dir = join(options.backupsDir, name);
    let bytes: number;
    try {
      rmSync(partial, { recursive: true, force: true });
      bytes = copyLiveDataDir(realpathSync(options.dataDir), partial);
    } catch (err) {
      await client.query('SELECT pg_backup_stop(false)').catch(() => undefined);
      rmSync(partial, { recursive: true, force: true });
      throw err;
    }
    const stopped = await client.query<{ labelfile: string; spcmapfile: string; lsn: string; at: Date }>(
      'SELECT labelfile, spcmapfile, lsn::text AS lsn, clock_timestamp() AS at FROM pg_backup_stop(true)',
    );
    const stop = stopped.rows[0];
    if (!stop) throw new Error('pg_backup_stop returned nothing');
    writeFileSync(join(partial, 'backup_label'), stop.labelfile, { mode: 0o600 });
    if (stop.spcmapfile) writeFileSync(join(partial, 'tablespace_map'), stop.spcmapfile, { mode: 0o600 });
    const backup: BaseBackup = { dir, label, startedAt, finishedAt: new Date(stop.at), startLsn: started.rows[0]?.lsn ?? '', stopLsn: stop.lsn, bytes };
    writeFileSync(join(partial, META), `${JSON.stringify({ ...backup, dir: undefined }, null, 2)}\n`);
    renameSync(partial, dir);
    return backup;
  } finally {
    await client.end();
  }
}

/** The complete base backups in `backupsDir`, oldest first. */
export function listBaseBackups(backupsDir: string): BaseBackup[] {
  if (!existsSync(backupsDir)) return [];
  return readdirSync(backupsDir)
    .filter((name) => !name.startsWith('.') && existsSync(join(backupsDir, name, META)))
    .map((name) => {
      const meta = JSON.parse(readFileSync(join(backupsDir, name, META), 'utf8')) as Omit<BaseBackup, 'dir' | 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string };
      return { ...meta, dir: join(backupsDir, name), startedAt: new Date(meta.startedAt), finishedAt: new Date(meta.finishedAt) };
    })
    .sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime());
}

/** The newest base backup a restore to `target` can start from (finished at or before it). */
export function baseBackupFor(backupsDir: string, target: Date): BaseBackup {
  const usable = listBaseBackups(backupsDir).filter((b) => b.finishedAt.getTime() <= target.getTime());
  const chosen = usable.at(-1);
  if (!chosen) {
    throw new Error(`没有早于 ${target.toISOString()} 完成的基础备份 / no base backup finished at or before ${target.toISOString()} in ${backupsDir}`);
  }
  return chosen;
}

/** A fresh data folder made from a base backup (owned by the postgres user when running as root). */
export function seedFromBaseBackup(baseBackupDir: string, dataDir: string, ids: PostgresIds | null): void {
  copyLiveDataDir(baseBackupDir, dataDir);
  copyFileSync(join(baseBackupDir, 'backup_label'), join(dataDir, 'backup_label'));
  if (existsSync(join(baseBackupDir, 'tablespace_map'))) copyFileSync(join(baseBackupDir, 'tablespace_map'), join(dataDir, 'tablespace_map'));
  rmSync(join(dataDir, META), { force: true });
  writeFileSync(join(dataDir, 'recovery.signal'), '');
  if (ids) chownTree(dataDir, ids);
}

function chownTree(path: string, ids: PostgresIds): void {
  chownSync(path, ids.uid, ids.gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), ids);
}

/**
 * Moves a data folder aside (never deleted: the operator removes it once the restore is checked)
 * and answers where it went. A symlink (the relocated data of a root start) moves its target.
 */
export function moveDataDirAside(dataDir: string, stamp: string): string | null {
  const st = lstatSync(dataDir, { throwIfNoEntry: false });
  if (!st) return null;
  const real = realpathSync(dataDir);
  const aside = `${real}.before-restore-${stamp}`;
  renameSync(real, aside);
  if (st.isSymbolicLink()) unlinkSync(dataDir);
  return aside;
}

/** The server's archiver: the last segment archived and the last failure (pg_stat_archiver). */
export type ArchiverStatus = { archivedCount: number; lastArchivedWal: string | null; lastArchivedAt: Date | null; failedCount: number; lastFailedAt: Date | null };

export async function archiverStatus(client: pg.Client): Promise<ArchiverStatus> {
  const row = (
    await client.query<{ archived_count: string; last_archived_wal: string | null; last_archived_time: Date | null; failed_count: string; last_failed_time: Date | null }>(
      'SELECT archived_count, last_archived_wal, last_archived_time, failed_count, last_failed_time FROM pg_stat_archiver',
    )
  ).rows[0];
  return {
    archivedCount: Number(row?.archived_count ?? 0),
    lastArchivedWal: row?.last_archived_wal ?? null,
    lastArchivedAt: row?.last_archived_time ?? null,
    failedCount: Number(row?.failed_count ?? 0),
    lastFailedAt: row?.last_failed_time ?? null,
  };
}

/**
 * Closes the current WAL segment and waits until the archiver has it: everything committed
 * before this call can then be restored.
 */
export async function archiveNow(adminUrl: string, timeoutMs = 60_000): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ wal: string }>('SELECT pg_walfile_name(pg_switch_wal()) AS wal');
    const wal = rows[0]?.wal ?? '';
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await archiverStatus(client);
      if (status.lastArchivedWal && status.lastArchivedWal >= wal) return wal;
      if (Date.now() > deadline) throw new Error(`WAL segment ${wal} not archived within ${timeoutMs / 1000} s (last archived: ${status.lastArchivedWal ?? 'none'}, failures: ${status.failedCount})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await client.end();
  }
}
