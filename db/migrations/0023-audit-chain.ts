import type { Migration } from './types.js';

/**
 * The admin audit becomes tamper-evident and loses nothing (issue 27, item 1).
 *
 * - Each row carries `chain_seq` (1, 2, 3… with no gap), `prev_hash` (the `row_hash` of the row
 *   before it; 64 zeros for the first) and `row_hash` = sha256 of `admin_audit_row_text(row)`,
 *   a canonical text of every stored column (jsonb::text is canonical; the time is written in
 *   UTC), the sequence number and `prev_hash` included. A BEFORE INSERT trigger computes them in
 *   the database for every writer (request rows, answer rows, the catalogue view's rows): it
 *   locks the one-row `admin_audit_chain_head` (`FOR UPDATE`, held to commit), so the chain's
 *   order is the commit order and a rolled-back insert leaves no gap.
 * - Existing rows are chained here, in id order.
 * - `answer` rows: the outcome of an admin write whose `request` row was written in the change's
 *   own transaction (status, code, answer data), written after the answer. The list shows them
 *   merged into their `request` row.
 * - `system_logs` gets the category `audit` (the daily verification's result).
 */
export const migration0023AuditChain: Migration = {
  name: '0023-audit-chain',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE admin_audit_logs DROP CONSTRAINT admin_audit_logs_source_check;
      ALTER TABLE admin_audit_logs ADD CONSTRAINT admin_audit_logs_source_check CHECK (source IN ('request', 'answer', 'catalogue'));
      ALTER TABLE admin_audit_logs ADD COLUMN chain_seq BIGINT, ADD COLUMN prev_hash CHAR(64), ADD COLUMN row_hash CHAR(64);

      CREATE TABLE admin_audit_chain_head (
        id SMALLINT PRIMARY KEY CHECK (id = 1),
        seq BIGINT NOT NULL,
        hash CHAR(64) NOT NULL
      );

      -- The text a row's hash is computed over: every stored column but row_hash, in a fixed order.
      CREATE FUNCTION admin_audit_row_text(r admin_audit_logs) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT jsonb_build_array(
          r.chain_seq, r.prev_hash, r.id, r.source, r.admin_id, r.admin_name, r.method, r.route, r.status, r.code,
          r.target_type, r.target_id, r.action, r.before, r.after, r.request, r.changes, r.request_id, r.ip, r.user_agent,
          to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text
      $$;
      CREATE FUNCTION admin_audit_row_hash(r admin_audit_logs) RETURNS char(64) LANGUAGE sql STABLE AS $$
        SELECT encode(sha256(convert_to(admin_audit_row_text(r), 'UTF8')), 'hex')
      $$;

      ALTER TABLE admin_audit_logs DISABLE TRIGGER admin_audit_logs_no_change;
      DO $$
      DECLARE
        r admin_audit_logs;
        prev char(64) := repeat('0', 64);
        seq bigint := 0;
      BEGIN
        FOR r IN SELECT * FROM admin_audit_logs ORDER BY id LOOP
          seq := seq + 1;
          r.chain_seq := seq;
          r.prev_hash := prev;
          r.row_hash := admin_audit_row_hash(r);
          UPDATE admin_audit_logs SET chain_seq = r.chain_seq, prev_hash = r.prev_hash, row_hash = r.row_hash WHERE id = r.id;
          prev := r.row_hash;
        END LOOP;
        INSERT INTO admin_audit_chain_head (id, seq, hash) VALUES (1, seq, prev);
      END $$;
      ALTER TABLE admin_audit_logs ENABLE TRIGGER admin_audit_logs_no_change;
      ALTER TABLE admin_audit_logs ALTER COLUMN chain_seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN row_hash SET NOT NULL;
      ALTER TABLE admin_audit_logs ADD CONSTRAINT admin_audit_logs_chain_seq_key UNIQUE (chain_seq);
      CREATE INDEX admin_audit_logs_answer_idx ON admin_audit_logs (request_id, id DESC) WHERE source = 'answer';

      CREATE FUNCTION admin_audit_logs_chain() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        head admin_audit_chain_head%ROWTYPE;
      BEGIN
        -- Held to commit: the next writer waits here, so chain order is commit order.
        SELECT * INTO head FROM admin_audit_chain_head WHERE id = 1 FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'admin audit chain head missing';
        END IF;
        NEW.chain_seq := head.seq + 1;
        NEW.prev_hash := head.hash;
        NEW.row_hash := admin_audit_row_hash(NEW);
        UPDATE admin_audit_chain_head SET seq = NEW.chain_seq, hash = NEW.row_hash WHERE id = 1;
        RETURN NEW;
      END $$;
      CREATE TRIGGER admin_audit_logs_chain BEFORE INSERT ON admin_audit_logs
        FOR EACH ROW EXECUTE FUNCTION admin_audit_logs_chain();

      -- The head moves only with an insert (the trigger); no one deletes or truncates it.
      CREATE TRIGGER admin_audit_chain_head_no_delete BEFORE DELETE ON admin_audit_chain_head
        FOR EACH ROW EXECUTE FUNCTION admin_audit_logs_append_only();
      CREATE TRIGGER admin_audit_chain_head_no_truncate BEFORE TRUNCATE ON admin_audit_chain_head
        FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_logs_append_only();

      ALTER TABLE system_logs DROP CONSTRAINT system_logs_category_check;
      ALTER TABLE system_logs ADD CONSTRAINT system_logs_category_check CHECK (category IN ('startup', 'migration', 'schedule', 'plugin', 'config', 'audit'));
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TRIGGER IF EXISTS admin_audit_logs_chain ON admin_audit_logs;
      DROP FUNCTION IF EXISTS admin_audit_logs_chain();
      DROP TABLE IF EXISTS admin_audit_chain_head;
      DROP INDEX IF EXISTS admin_audit_logs_answer_idx;
      ALTER TABLE admin_audit_logs DROP CONSTRAINT IF EXISTS admin_audit_logs_chain_seq_key;
      DROP FUNCTION IF EXISTS admin_audit_row_hash(admin_audit_logs);
      DROP FUNCTION IF EXISTS admin_audit_row_text(admin_audit_logs);
      ALTER TABLE admin_audit_logs DROP COLUMN chain_seq, DROP COLUMN prev_hash, DROP COLUMN row_hash;
      ALTER TABLE system_logs DROP CONSTRAINT system_logs_category_check;
      ALTER TABLE system_logs ADD CONSTRAINT system_logs_category_check CHECK (category IN ('startup', 'migration', 'schedule', 'plugin', 'config'));
    `);
  },
};
