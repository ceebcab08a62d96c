import type { Migration } from './types.js';

/**
 * The base backups taken of the database server (`npm run cluster -- backup`, docs/production.md
 * "Back up"): one row per complete backup, written by the backup command after
 * `pg_backup_stop`. The dashboard and the `database_backup_age_seconds` gauge read the newest.
 * A restore to a point in time brings back the rows of the backups taken before it.
 */
export const migration0037DatabaseBackups: Migration = {
  name: '0037-database-backups',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE IF NOT EXISTS database_backups (
        id BIGSERIAL PRIMARY KEY,
        label VARCHAR(191) NOT NULL UNIQUE,
        started_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ NOT NULL,
        start_lsn VARCHAR(32) NOT NULL,
        stop_lsn VARCHAR(32) NOT NULL,
        size_bytes BIGINT NOT NULL CHECK (size_bytes >= 0),
        location VARCHAR(500) NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (finished_at >= started_at)
      );
      CREATE INDEX IF NOT EXISTS database_backups_finished_idx ON database_backups (finished_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS database_backups');
  },
};
