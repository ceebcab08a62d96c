import type { Migration } from './types.js';

/**
 * Admin settings, one row per key (`<group>.<key>`; the groups and their schemas live in
 * `domain/settings/`). A plain value is JSONB; a secret is sealed text (the secret box) and never
 * leaves the server. A key without a row has its declared default. Writers `pg_notify` the
 * `settings_invalidate` channel in the same transaction, so every process drops its cached copy.
 */
export const migration0015Settings: Migration = {
  name: '0015-settings',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE settings (
        key VARCHAR(100) PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$'),
        value JSONB,
        sealed_value TEXT,
        updated_by_admin_id INTEGER REFERENCES admins(id),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((value IS NULL) <> (sealed_value IS NULL))
      );
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS settings');
  },
};
