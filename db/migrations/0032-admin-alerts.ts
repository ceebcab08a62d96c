import type { Migration } from './types.js';

/**
 * Admin alerts of reseller economics (issue #29): the one place an admin is told that something
 * about money or a supplier changed — a price drift finding, upstream work waiting for supplier
 * funds, a runway the balance does not cover, a reconciliation finding. `alert_key` is UNIQUE:
 * the code raises an alert with `ON CONFLICT DO NOTHING` in the transaction of what it reports,
 * so it is one alert per change, never one per run, and none is lost to a crash between the two.
 */
export const migration0032AdminAlerts: Migration = {
  name: '0032-admin-alerts',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE admin_alerts (
        id BIGSERIAL PRIMARY KEY,
        kind VARCHAR(32) NOT NULL,
        alert_key VARCHAR(191) NOT NULL,
        severity VARCHAR(16) NOT NULL DEFAULT 'warning' CHECK (severity IN ('info', 'warning', 'critical')),
        title VARCHAR(191) NOT NULL,
        message TEXT NOT NULL,
        subject JSONB NOT NULL DEFAULT '{}'::jsonb,
        acknowledged_by INTEGER,
        acknowledged_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT admin_alerts_once UNIQUE (alert_key),
        CONSTRAINT admin_alerts_acknowledged CHECK ((acknowledged_by IS NULL) = (acknowledged_at IS NULL))
      );
      CREATE INDEX admin_alerts_open_idx ON admin_alerts (id DESC) WHERE acknowledged_at IS NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS admin_alerts;');
  },
};
