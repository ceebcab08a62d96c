import type { Migration } from './types.js';

/**
 * Two-factor sign-in (TOTP, RFC 6238) for admins and users: one credential per account (its
 * secret sealed; `last_used_step` is the time step of the last accepted code, advanced only by a
 * guarded update so no code is accepted twice), its hashed single-use recovery codes, the
 * single-use challenges between the password step and the code step, and on each session its
 * scope ('enrol': may only enrol) and when it last proved a second factor (step-up).
 */
export const migration0024TwoFactor: Migration = {
  name: '0024-two-factor',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE two_factor_credentials (
        id SERIAL PRIMARY KEY,
        surface VARCHAR(16) NOT NULL CHECK (surface IN ('admin', 'client')),
        subject_id INTEGER NOT NULL,
        secret_sealed TEXT NOT NULL,
        confirmed_at TIMESTAMPTZ NULL,
        last_used_step BIGINT NOT NULL DEFAULT 0 CHECK (last_used_step >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (surface, subject_id)
      );
      CREATE TABLE two_factor_recovery_codes (
        id SERIAL PRIMARY KEY,
        credential_id INTEGER NOT NULL REFERENCES two_factor_credentials(id) ON DELETE CASCADE,
        code_hash CHAR(64) NOT NULL,
        used_at TIMESTAMPTZ NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (credential_id, code_hash)
      );
      CREATE TABLE two_factor_challenges (
        token_hash CHAR(64) PRIMARY KEY,
        surface VARCHAR(16) NOT NULL CHECK (surface IN ('admin', 'client')),
        subject_id INTEGER NOT NULL,
        account VARCHAR(191) NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        used_at TIMESTAMPTZ NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX two_factor_challenges_expires_at ON two_factor_challenges (expires_at);
      ALTER TABLE auth_sessions
        ADD COLUMN scope VARCHAR(16) NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'enrol')),
        ADD COLUMN second_factor_at TIMESTAMPTZ NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE auth_sessions DROP COLUMN second_factor_at, DROP COLUMN scope;
      DROP TABLE two_factor_challenges;
      DROP TABLE two_factor_recovery_codes;
      DROP TABLE two_factor_credentials;
    `);
  },
};
