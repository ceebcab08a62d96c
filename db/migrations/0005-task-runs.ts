import type { Migration } from './types.js';

/**
 * Task runs of built-in and plugin tasks: who started them (heartbeat, schedule, manual,
 * automation), the `skipped` status of a refused overlapping start, the plugin and title, the
 * slot a scheduled run belongs to (one run per task and slot) and the lock deadline after
 * which a run still `running` is closed as failed. Indexes for the retention clean-up.
 */
export const migration0005TaskRuns: Migration = {
  name: '0005-task-runs',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE task_runs DROP CONSTRAINT task_runs_trigger_check;
      ALTER TABLE task_runs ADD CONSTRAINT task_runs_trigger_check
        CHECK (trigger IN ('schedule', 'heartbeat', 'manual', 'automation'));
      ALTER TABLE task_runs DROP CONSTRAINT task_runs_status_check;
      ALTER TABLE task_runs ADD CONSTRAINT task_runs_status_check
        CHECK (status IN ('running', 'succeeded', 'failed', 'skipped'));
      ALTER TABLE task_runs
        ADD COLUMN task_title VARCHAR(128) NOT NULL DEFAULT '',
        ADD COLUMN plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        ADD COLUMN plugin_slug VARCHAR(64),
        ADD COLUMN slot_at TIMESTAMPTZ,
        ADD COLUMN deadline_at TIMESTAMPTZ,
        ADD CONSTRAINT task_runs_finished_when_closed CHECK ((status = 'running') = (finished_at IS NULL)),
        ADD CONSTRAINT task_runs_deadline_after_start CHECK (deadline_at IS NULL OR deadline_at > started_at);
      CREATE UNIQUE INDEX task_runs_once_per_slot ON task_runs (task_key, slot_at)
        WHERE slot_at IS NOT NULL AND status <> 'skipped';
      CREATE INDEX task_runs_started_idx ON task_runs (started_at);
      CREATE INDEX task_runs_status_idx ON task_runs (status, started_at DESC);
      CREATE INDEX task_runs_running_deadline_idx ON task_runs (deadline_at) WHERE status = 'running';
      CREATE INDEX login_logs_created_idx ON login_logs (created_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS login_logs_created_idx;
      DELETE FROM task_runs WHERE status = 'skipped' OR trigger NOT IN ('schedule', 'manual');
      ALTER TABLE task_runs
        DROP CONSTRAINT task_runs_deadline_after_start,
        DROP CONSTRAINT task_runs_finished_when_closed,
        DROP COLUMN deadline_at,
        DROP COLUMN slot_at,
        DROP COLUMN plugin_slug,
        DROP COLUMN plugin_id,
        DROP COLUMN task_title;
      ALTER TABLE task_runs DROP CONSTRAINT task_runs_status_check;
      ALTER TABLE task_runs ADD CONSTRAINT task_runs_status_check CHECK (status IN ('running', 'succeeded', 'failed'));
      ALTER TABLE task_runs DROP CONSTRAINT task_runs_trigger_check;
      ALTER TABLE task_runs ADD CONSTRAINT task_runs_trigger_check CHECK (trigger IN ('schedule', 'manual'));
    `);
  },
};
