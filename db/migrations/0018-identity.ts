import { extendCheck } from './extend-check.js';
import type { Migration } from './types.js';


/**
 * Identity (issue 15): real-name verification attempts and their history, the verified identity
 * on the user (masks and a keyed hash of the ID number; the clear values only sealed on the
 * attempt), one-time codes for e-mail verification and password reset, and captcha challenges.
 *
 * - `verification_attempts`: one row per attempt, owned by one user; `attempt_no` is our
 *   provider idempotency key (`outer_order_no`), `certify_id` the provider's (UNIQUE). Status
 *   `awaiting_payment` (a paid attempt before its invoice is paid; UNIQUE invoice) → `pending`
 *   → `passed` / `failed` / `expired`; `cancelled` when a restart replaced it (`restart_of`
 *   UNIQUE: one replacement per attempt). Results are guarded updates `WHERE status = 'pending'`.
 * - users: `verification_id_hash` is set only while verified and UNIQUE: one identity, one account.
 * - `verification_history`: a row per result and per admin unbinding; never deleted.
 * - `auth_codes`: every send request (also for addresses without an account, which get no code),
 *   so throttling counts them; codes stored as HMAC, single use (`consumed_at`), attempts limited.
 * - `captcha_challenges`: the captcha plugin's signed id and image, used once.
 */
export const migration0018Identity: Migration = {
  name: '0018-identity',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ${extendCheck('invoices', 'type', ['verification'])}
      ${extendCheck('outbox', 'kind', ['start_verification', 'signal_verification'])}

      CREATE SEQUENCE verification_attempt_no_seq;

      CREATE TABLE verification_attempts (
        id BIGSERIAL PRIMARY KEY,
        attempt_no VARCHAR(32) NOT NULL UNIQUE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        status VARCHAR(24) NOT NULL CHECK (status IN ('awaiting_payment', 'pending', 'passed', 'failed', 'expired', 'cancelled')),
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('face', 'cert_photo')),
        name_sealed TEXT NOT NULL,
        id_number_sealed TEXT NOT NULL,
        id_hash CHAR(64) NOT NULL,
        name_mask VARCHAR(64) NOT NULL,
        id_mask VARCHAR(32) NOT NULL,
        certify_id VARCHAR(128) UNIQUE,
        charge VARCHAR(16) NOT NULL CHECK (charge IN ('free', 'paid', 'restart')),
        fee NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (fee >= 0),
        invoice_id BIGINT UNIQUE REFERENCES invoices(id),
        restart_of BIGINT UNIQUE REFERENCES verification_attempts(id),
        scan_token_hash CHAR(64) UNIQUE,
        provider_reached BOOLEAN NOT NULL DEFAULT false,
        expires_at TIMESTAMPTZ,
        finished_at TIMESTAMPTZ,
        result_source VARCHAR(16) CHECK (result_source IN ('callback', 'query', 'expiry', 'restart')),
        reason_code VARCHAR(32),
        reason_message VARCHAR(128),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((charge = 'paid') = (invoice_id IS NOT NULL) OR charge = 'restart'),
        CHECK (status = 'awaiting_payment' OR expires_at IS NOT NULL),
        CHECK ((status IN ('passed', 'failed', 'expired', 'cancelled')) = (finished_at IS NOT NULL))
      );
      CREATE INDEX verification_attempts_user_idx ON verification_attempts (user_id, id DESC);
      CREATE INDEX verification_attempts_open_idx ON verification_attempts (expires_at) WHERE status = 'pending';
      CREATE UNIQUE INDEX verification_attempts_one_open ON verification_attempts (user_id) WHERE status IN ('awaiting_payment', 'pending');

      ALTER TABLE users
        ADD COLUMN verification_name_mask VARCHAR(64),
        ADD COLUMN verification_id_mask VARCHAR(32),
        ADD COLUMN verification_id_hash CHAR(64),
        ADD COLUMN verification_attempt_id BIGINT REFERENCES verification_attempts(id),
        ADD COLUMN verified_at TIMESTAMPTZ,
        ADD COLUMN verification_updated_at TIMESTAMPTZ,
        ADD CONSTRAINT users_verified_identity CHECK (verification_id_hash IS NULL OR (is_verified = 1 AND verification_status = 2));
      CREATE UNIQUE INDEX users_verification_id_hash_unique ON users (verification_id_hash) WHERE verification_id_hash IS NOT NULL;

      CREATE TABLE verification_history (
        id BIGSERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        attempt_id BIGINT REFERENCES verification_attempts(id),
        event VARCHAR(16) NOT NULL CHECK (event IN ('passed', 'failed', 'expired', 'unbound')),
        status_after SMALLINT CHECK (status_after IN (1, 2, 3)),
        name_mask VARCHAR(64),
        id_mask VARCHAR(32),
        reason VARCHAR(255) NOT NULL DEFAULT '',
        source VARCHAR(16) NOT NULL CHECK (source IN ('callback', 'query', 'expiry', 'admin')),
        admin_id INTEGER REFERENCES admins(id),
        trace_id VARCHAR(64),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (attempt_id, event)
      );
      CREATE INDEX verification_history_user_idx ON verification_history (user_id, id DESC);

      CREATE TABLE auth_codes (
        id BIGSERIAL PRIMARY KEY,
        purpose VARCHAR(24) NOT NULL CHECK (purpose IN ('email_verification', 'password_reset')),
        channel VARCHAR(8) NOT NULL CHECK (channel IN ('mail', 'sms')),
        user_id INTEGER REFERENCES users(id),
        address_hash CHAR(64) NOT NULL,
        client_ip VARCHAR(64) NOT NULL,
        code_hash CHAR(64),
        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        expires_at TIMESTAMPTZ NOT NULL,
        consumed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((code_hash IS NULL) = (user_id IS NULL))
      );
      CREATE INDEX auth_codes_address_idx ON auth_codes (purpose, address_hash, created_at DESC);
      CREATE INDEX auth_codes_ip_idx ON auth_codes (client_ip, created_at DESC);
      CREATE INDEX auth_codes_user_idx ON auth_codes (user_id, created_at DESC) WHERE user_id IS NOT NULL;

      CREATE TABLE captcha_challenges (
        id CHAR(32) PRIMARY KEY,
        captcha_token TEXT NOT NULL,
        svg TEXT NOT NULL,
        client_ip VARCHAR(64) NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        used_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX captcha_challenges_expiry_idx ON captcha_challenges (expires_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS captcha_challenges;
      DROP TABLE IF EXISTS auth_codes;
      DROP TABLE IF EXISTS verification_history;
      ALTER TABLE users DROP CONSTRAINT IF EXISTS users_verified_identity;
      ALTER TABLE users DROP COLUMN IF EXISTS verification_name_mask, DROP COLUMN IF EXISTS verification_id_mask,
        DROP COLUMN IF EXISTS verification_id_hash, DROP COLUMN IF EXISTS verification_attempt_id,
        DROP COLUMN IF EXISTS verified_at, DROP COLUMN IF EXISTS verification_updated_at;
      DROP TABLE IF EXISTS verification_attempts;
      DROP SEQUENCE IF EXISTS verification_attempt_no_seq;
    `);
  },
};
