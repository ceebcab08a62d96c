import type { Migration } from './types.js';

/** Installed plugins, their bindings to scenes and business objects, and the runtime log of every plugin action. */
export const migration0002Plugins: Migration = {
  name: '0002-plugins',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE plugins (
        id SERIAL PRIMARY KEY,
        domain VARCHAR(32) NOT NULL CHECK (domain IN ('payment', 'verification', 'captcha', 'mail', 'sms', 'upstream', 'addons')),
        slug VARCHAR(64) NOT NULL,
        key VARCHAR(64) NOT NULL,
        name VARCHAR(128) NOT NULL,
        version VARCHAR(32) NOT NULL,
        status VARCHAR(16) NOT NULL DEFAULT 'installed' CHECK (status IN ('installed', 'enabled', 'disabled')),
        manifest JSONB NOT NULL,
        config JSONB NOT NULL DEFAULT '{}'::jsonb,
        secrets JSONB NOT NULL DEFAULT '{}'::jsonb,
        installed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        enabled_at TIMESTAMPTZ,
        disabled_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT plugins_domain_slug_unique UNIQUE (domain, slug),
        CONSTRAINT plugins_domain_key_unique UNIQUE (domain, key),
        CONSTRAINT plugins_config_object CHECK (jsonb_typeof(config) = 'object'),
        CONSTRAINT plugins_secrets_object CHECK (jsonb_typeof(secrets) = 'object')
      );
      CREATE TABLE plugin_bindings (
        id SERIAL PRIMARY KEY,
        plugin_id INTEGER NOT NULL REFERENCES plugins(id),
        domain VARCHAR(32) NOT NULL,
        binding_type VARCHAR(16) NOT NULL CHECK (binding_type IN ('default', 'supplier', 'product', 'service')),
        scene VARCHAR(64),
        binding_id INTEGER,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT plugin_bindings_target CHECK (
          (binding_type = 'default' AND scene IS NOT NULL AND binding_id IS NULL)
          OR (binding_type <> 'default' AND scene IS NULL AND binding_id IS NOT NULL)
        )
      );
      CREATE UNIQUE INDEX plugin_bindings_default_unique ON plugin_bindings (domain, scene) WHERE binding_type = 'default';
      CREATE UNIQUE INDEX plugin_bindings_target_unique ON plugin_bindings (domain, binding_type, binding_id) WHERE binding_type <> 'default';
      CREATE INDEX plugin_bindings_plugin_idx ON plugin_bindings (plugin_id);
      CREATE TABLE plugin_runtime_logs (
        id BIGSERIAL PRIMARY KEY,
        domain VARCHAR(32) NOT NULL,
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        plugin_slug VARCHAR(64) NOT NULL,
        binding_id INTEGER,
        actor_type VARCHAR(16) NOT NULL CHECK (actor_type IN ('admin', 'client', 'system')),
        actor_id INTEGER,
        action VARCHAR(128) NOT NULL,
        status VARCHAR(16) NOT NULL CHECK (status IN ('success', 'failure', 'timeout')),
        duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
        message VARCHAR(255) NOT NULL DEFAULT '',
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        request_summary TEXT NOT NULL DEFAULT '',
        response_summary TEXT NOT NULL DEFAULT '',
        error_detail TEXT NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX plugin_runtime_logs_created_idx ON plugin_runtime_logs (created_at);
      CREATE INDEX plugin_runtime_logs_plugin_idx ON plugin_runtime_logs (plugin_id, created_at);
      CREATE INDEX plugin_runtime_logs_domain_idx ON plugin_runtime_logs (domain, created_at);
      CREATE INDEX plugin_runtime_logs_status_idx ON plugin_runtime_logs (status, created_at);
      CREATE INDEX plugin_runtime_logs_action_idx ON plugin_runtime_logs (action, created_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS plugin_runtime_logs; DROP TABLE IF EXISTS plugin_bindings; DROP TABLE IF EXISTS plugins;');
  },
};
