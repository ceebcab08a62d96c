import type { Migration } from './types.js';

/**
 * The service lifecycle jobs: what host polling learns of the upstream (the upstream's own due
 * date, which is not the customer's `next_due_at`), why a service is suspended (only the
 * overdue suspensions are lifted by a renewal), and the notification log that makes every
 * reminder go out at most once per channel: the UNIQUE key (kind, channel, entity, occasion)
 * is claimed (`sending`) in its own committed statement before the plugin is called and marked
 * `sent` after, so neither a rerun nor a retry after a crash sends it again.
 */
export const migration0010Lifecycle: Migration = {
  name: '0010-lifecycle',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE services
        ADD COLUMN upstream_due_at TIMESTAMPTZ,
        ADD COLUMN suspend_reason VARCHAR(16) CHECK (suspend_reason IN ('overdue', 'admin')),
        ADD CONSTRAINT services_suspend_reason_when_suspended CHECK (suspend_reason IS NULL OR status = 'suspended');
      CREATE INDEX services_suspended_idx ON services (suspended_at) WHERE status = 'suspended';

      CREATE TABLE notification_log (
        id BIGSERIAL PRIMARY KEY,
        kind VARCHAR(32) NOT NULL
          CHECK (kind IN ('renewal_due', 'service_overdue', 'service_suspended', 'service_terminated', 'invoice_unpaid')),
        channel VARCHAR(8) NOT NULL CHECK (channel IN ('mail', 'sms')),
        entity_type VARCHAR(16) NOT NULL CHECK (entity_type IN ('service', 'invoice')),
        entity_id INTEGER NOT NULL,
        occasion VARCHAR(64) NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id),
        recipient VARCHAR(191) NOT NULL DEFAULT '',
        subject VARCHAR(200) NOT NULL DEFAULT '',
        status VARCHAR(16) NOT NULL CHECK (status IN ('sending', 'sent', 'failed', 'unknown')),
        attempts SMALLINT NOT NULL DEFAULT 1 CHECK (attempts >= 1),
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        provider_message_id VARCHAR(191),
        error VARCHAR(255),
        task_run_id INTEGER,
        sent_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT notification_log_once UNIQUE (kind, channel, entity_type, entity_id, occasion),
        CONSTRAINT notification_log_sent_at CHECK ((status = 'sent') = (sent_at IS NOT NULL))
      );
      CREATE INDEX notification_log_user_idx ON notification_log (user_id, id DESC);
      CREATE INDEX notification_log_open_idx ON notification_log (status, updated_at) WHERE status IN ('sending', 'failed');
      CREATE INDEX notification_log_created_idx ON notification_log (created_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS notification_log;
      DROP INDEX IF EXISTS services_suspended_idx;
      ALTER TABLE services DROP CONSTRAINT services_suspend_reason_when_suspended, DROP COLUMN suspend_reason, DROP COLUMN upstream_due_at;
    `);
  },
};
