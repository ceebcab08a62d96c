import type { Migration } from './types.js';

/** Accounts, roles, sessions, the login log and the task-run table of the heartbeat. */
export const migration0001Foundation: Migration = {
  name: '0001-foundation',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE admin_roles (
        id SERIAL PRIMARY KEY,
        code VARCHAR(64) NOT NULL UNIQUE,
        name VARCHAR(64) NOT NULL,
        permissions JSONB NOT NULL DEFAULT '[]'::jsonb,
        is_super BOOLEAN NOT NULL DEFAULT FALSE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT admin_roles_permissions_array CHECK (jsonb_typeof(permissions) = 'array')
      );
      CREATE TABLE admins (
        id SERIAL PRIMARY KEY,
        username VARCHAR(64) NOT NULL UNIQUE,
        display_name VARCHAR(64) NOT NULL DEFAULT '',
        password_hash VARCHAR(255) NOT NULL,
        role_id INTEGER NOT NULL REFERENCES admin_roles(id),
        status VARCHAR(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        last_login_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE users (
        id SERIAL PRIMARY KEY,
        email VARCHAR(191) UNIQUE,
        phone VARCHAR(32) UNIQUE,
        nickname VARCHAR(64) NOT NULL DEFAULT '',
        password_hash VARCHAR(255) NOT NULL,
        status VARCHAR(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        email_verified_at TIMESTAMPTZ,
        is_verified SMALLINT NOT NULL DEFAULT 0 CHECK (is_verified IN (0, 1)),
        verification_status SMALLINT CHECK (verification_status IN (1, 2, 3)),
        last_login_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT users_has_account CHECK (email IS NOT NULL OR phone IS NOT NULL)
      );
      CREATE INDEX users_created_at_idx ON users (created_at);
      CREATE TABLE auth_sessions (
        id UUID PRIMARY KEY,
        surface VARCHAR(16) NOT NULL CHECK (surface IN ('admin', 'client')),
        subject_id INTEGER NOT NULL,
        ip VARCHAR(64) NOT NULL DEFAULT '',
        user_agent VARCHAR(255) NOT NULL DEFAULT '',
        expires_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX auth_sessions_subject_idx ON auth_sessions (surface, subject_id) WHERE revoked_at IS NULL;
      CREATE TABLE login_logs (
        id SERIAL PRIMARY KEY,
        surface VARCHAR(16) NOT NULL,
        account VARCHAR(191) NOT NULL,
        subject_id INTEGER,
        ip VARCHAR(64) NOT NULL DEFAULT '',
        user_agent VARCHAR(255) NOT NULL DEFAULT '',
        success BOOLEAN NOT NULL,
        reason VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX login_logs_account_idx ON login_logs (surface, account, created_at);
      CREATE INDEX login_logs_ip_idx ON login_logs (ip, created_at);
      CREATE TABLE task_runs (
        id SERIAL PRIMARY KEY,
        task_key VARCHAR(128) NOT NULL,
        trigger VARCHAR(16) NOT NULL CHECK (trigger IN ('schedule', 'manual')),
        workflow_id VARCHAR(255) NOT NULL,
        run_id VARCHAR(64) NOT NULL,
        status VARCHAR(16) NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
        summary JSONB,
        error TEXT,
        scheduled_at TIMESTAMPTZ,
        started_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ,
        CONSTRAINT task_runs_once_per_run UNIQUE (task_key, workflow_id, run_id)
      );
      CREATE INDEX task_runs_task_idx ON task_runs (task_key, started_at DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(
      'DROP TABLE IF EXISTS task_runs, login_logs, auth_sessions, users, admins, admin_roles CASCADE',
    );
  },
};
