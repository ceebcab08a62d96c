import type { Migration } from './types.js';

/**
 * Personal access tokens of client accounts (docs/security.md "Personal access tokens"): the secret is
 * never stored, only its SHA-256 (`secret_hash`); `key_id` is the public part of the token that
 * finds the row. Revocation keeps the row (who revoked it, when) so lists show it.
 */
export const migration0025PersonalAccessTokens: Migration = {
  name: '0025-personal-access-tokens',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE personal_access_tokens (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name VARCHAR(64) NOT NULL CHECK (length(btrim(name)) > 0),
        key_id CHAR(16) NOT NULL UNIQUE CHECK (key_id ~ '^[0-9a-f]{16}$'),
        secret_hash BYTEA NOT NULL CHECK (octet_length(secret_hash) = 32),
        scopes VARCHAR(16)[] NOT NULL
          CHECK (cardinality(scopes) BETWEEN 1 AND 3 AND scopes <@ ARRAY['read', 'purchase', 'console']::VARCHAR(16)[]),
        expires_at TIMESTAMPTZ NOT NULL,
        created_ip VARCHAR(64) NOT NULL DEFAULT '',
        last_used_at TIMESTAMPTZ,
        last_used_ip VARCHAR(64),
        revoked_at TIMESTAMPTZ,
        revoked_by_type VARCHAR(16) CHECK (revoked_by_type IN ('admin', 'user', 'system')),
        revoked_by_id INTEGER,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (expires_at > created_at),
        CHECK ((revoked_at IS NULL) = (revoked_by_type IS NULL))
      );
      CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id, id);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS personal_access_tokens');
  },
};
