import type { Migration } from './types.js';

/**
 * One browser console session per row, from the public token to the end of the relay. Tokens
 * are stored as SHA-256 (hex) only. Each step is one guarded UPDATE: the public token is taken
 * once (`public_consumed_at IS NULL`, before `public_expires_at`, from the bound address), which
 * sets the relay token; the relay token is taken once the same way. The CHECKs keep the steps
 * in order. `ended_at`, the close reason and byte counts are written when the relay closes.
 */
export const migration0014VncSessions: Migration = {
  name: '0014-vnc-sessions',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE vnc_sessions (
        id BIGSERIAL PRIMARY KEY,
        service_id INTEGER NOT NULL REFERENCES services(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        client_ip VARCHAR(64) NOT NULL,
        public_token_hash CHAR(64) NOT NULL UNIQUE,
        public_expires_at TIMESTAMPTZ NOT NULL,
        public_consumed_at TIMESTAMPTZ,
        relay_token_hash CHAR(64) UNIQUE,
        relay_expires_at TIMESTAMPTZ,
        relay_consumed_at TIMESTAMPTZ,
        ended_at TIMESTAMPTZ,
        close_reason VARCHAR(32),
        bytes_to_browser BIGINT NOT NULL DEFAULT 0,
        bytes_from_browser BIGINT NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((relay_token_hash IS NULL) = (public_consumed_at IS NULL)),
        CHECK ((relay_token_hash IS NULL) = (relay_expires_at IS NULL)),
        CHECK (relay_consumed_at IS NULL OR relay_token_hash IS NOT NULL),
        CHECK (ended_at IS NULL OR relay_consumed_at IS NOT NULL)
      );
      CREATE INDEX vnc_sessions_service_idx ON vnc_sessions (service_id, id DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS vnc_sessions');
  },
};
