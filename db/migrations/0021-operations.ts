import type { Migration } from './types.js';

/**
 * Operations: the admin audit, the API request log and the system log.
 *
 * - `admin_audit_logs` is append-only: a trigger refuses UPDATE, DELETE and TRUNCATE (as the
 *   money tables refuse theirs), so no admin, however privileged in the API, removes a trace.
 *   Two kinds of rows share it: `request` (one per admin write, written centrally by the route
 *   middleware: route template, target, outcome, redacted request fields and answer) and
 *   `catalogue` (the field-level diff a catalogue change writes in its own transaction).
 * - `catalogue_audit_logs` becomes a view of the catalogue rows (one mechanism, one table); its
 *   rows move over with their ids, so links to `catalogue-audit-logs/{id}` stay valid.
 * - `api_request_logs` and `system_logs` are trimmed by the daily retention task.
 */
export const migration0021Operations: Migration = {
  name: '0021-operations',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE admin_audit_logs (
        id BIGSERIAL PRIMARY KEY,
        source VARCHAR(16) NOT NULL CHECK (source IN ('request', 'catalogue')),
        admin_id INTEGER,
        admin_name VARCHAR(64) NOT NULL DEFAULT '',
        method VARCHAR(8),
        route VARCHAR(255),
        status SMALLINT,
        code INTEGER,
        target_type VARCHAR(32),
        target_id VARCHAR(64),
        action VARCHAR(32) NOT NULL,
        before JSONB,
        after JSONB,
        request JSONB,
        changes JSONB,
        request_id VARCHAR(64),
        ip VARCHAR(64) NOT NULL DEFAULT '',
        user_agent VARCHAR(255) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX admin_audit_logs_created_idx ON admin_audit_logs (created_at DESC, id DESC);
      CREATE INDEX admin_audit_logs_admin_idx ON admin_audit_logs (admin_id, id DESC);
      CREATE INDEX admin_audit_logs_target_idx ON admin_audit_logs (target_type, target_id, id DESC);
      CREATE INDEX admin_audit_logs_request_idx ON admin_audit_logs (request_id) WHERE request_id IS NOT NULL;

      INSERT INTO admin_audit_logs (id, source, admin_id, admin_name, target_type, target_id, action, changes, created_at)
        SELECT id, 'catalogue', operator_id, operator_name, entity_type, entity_id::text, action, changes, created_at
          FROM catalogue_audit_logs ORDER BY id;
      SELECT setval(pg_get_serial_sequence('admin_audit_logs', 'id'), COALESCE((SELECT max(id) FROM admin_audit_logs), 0) + 1, false);
      DROP TABLE catalogue_audit_logs;
      CREATE VIEW catalogue_audit_logs AS
        SELECT id, target_type AS entity_type, target_id::int AS entity_id, action, changes,
               admin_id AS operator_id, admin_name AS operator_name, request_id, ip, created_at
          FROM admin_audit_logs WHERE source = 'catalogue';
      -- Writers of catalogue diffs keep inserting into the view; the row lands in the audit.
      CREATE FUNCTION catalogue_audit_logs_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.entity_type NOT IN ('menu', 'group', 'category', 'product') THEN
          RAISE EXCEPTION 'unknown catalogue entity type %', NEW.entity_type;
        END IF;
        INSERT INTO admin_audit_logs (source, admin_id, admin_name, target_type, target_id, action, changes, request_id, ip, created_at)
          VALUES ('catalogue', NEW.operator_id, COALESCE(NEW.operator_name, ''), NEW.entity_type, NEW.entity_id::text, NEW.action,
                  COALESCE(NEW.changes, '{}'::jsonb), NEW.request_id, COALESCE(NEW.ip, ''), COALESCE(NEW.created_at, now()))
          RETURNING id, created_at INTO NEW.id, NEW.created_at;
        RETURN NEW;
      END $$;
      CREATE TRIGGER catalogue_audit_logs_insert INSTEAD OF INSERT ON catalogue_audit_logs
        FOR EACH ROW EXECUTE FUNCTION catalogue_audit_logs_insert();

      CREATE FUNCTION admin_audit_logs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the admin audit is append-only (% refused)', TG_OP;
      END $$;
      CREATE TRIGGER admin_audit_logs_no_change BEFORE UPDATE OR DELETE ON admin_audit_logs
        FOR EACH ROW EXECUTE FUNCTION admin_audit_logs_append_only();
      CREATE TRIGGER admin_audit_logs_no_truncate BEFORE TRUNCATE ON admin_audit_logs
        FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_logs_append_only();

      CREATE TABLE api_request_logs (
        id BIGSERIAL PRIMARY KEY,
        method VARCHAR(8) NOT NULL,
        route VARCHAR(255) NOT NULL,
        status SMALLINT NOT NULL,
        code INTEGER,
        duration_ms INTEGER NOT NULL,
        user_id INTEGER,
        admin_id INTEGER,
        ip VARCHAR(64) NOT NULL DEFAULT '',
        request_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX api_request_logs_created_idx ON api_request_logs (created_at);
      CREATE INDEX api_request_logs_user_idx ON api_request_logs (user_id, id DESC) WHERE user_id IS NOT NULL;
      CREATE INDEX api_request_logs_admin_idx ON api_request_logs (admin_id, id DESC) WHERE admin_id IS NOT NULL;

      CREATE TABLE system_logs (
        id BIGSERIAL PRIMARY KEY,
        level VARCHAR(8) NOT NULL CHECK (level IN ('info', 'warn', 'error')),
        category VARCHAR(16) NOT NULL CHECK (category IN ('startup', 'migration', 'schedule', 'plugin', 'config')),
        event VARCHAR(64) NOT NULL,
        message VARCHAR(500) NOT NULL DEFAULT '',
        detail JSONB,
        process VARCHAR(16) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX system_logs_created_idx ON system_logs (created_at DESC, id DESC);
      CREATE INDEX system_logs_category_idx ON system_logs (category, id DESC);

      -- Admin notes on a user (append-only in the API; each names its author).
      CREATE TABLE user_notes (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        admin_id INTEGER REFERENCES admins(id),
        admin_name VARCHAR(64) NOT NULL DEFAULT '',
        content VARCHAR(2000) NOT NULL CHECK (length(content) > 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX user_notes_user_idx ON user_notes (user_id, id DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP VIEW IF EXISTS catalogue_audit_logs;
      CREATE TABLE catalogue_audit_logs (
        id BIGSERIAL PRIMARY KEY,
        entity_type VARCHAR(16) NOT NULL,
        entity_id INTEGER NOT NULL,
        action VARCHAR(32) NOT NULL,
        changes JSONB NOT NULL DEFAULT '{}',
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      DROP TABLE IF EXISTS admin_audit_logs, api_request_logs, system_logs, user_notes;
      DROP FUNCTION IF EXISTS admin_audit_logs_append_only();
      DROP FUNCTION IF EXISTS catalogue_audit_logs_insert();
    `);
  },
};
