import type { Migration } from './types.js';

/**
 * Provisioning and the service console: what a service remembers of its purchase (console
 * template, real provider and plugin keys, supplier, hostname, sealed password), the downstream
 * reference the upstream recognises repeated orders by (created before the first upstream call
 * and reused on every retry), where its provisioning stands and why it waits, its upstream
 * binding (supplier, plugin, upstream product, invoice and host), and the history of its steps.
 */
export const migration0008Provisioning: Migration = {
  name: '0008-provisioning',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE services
        ADD COLUMN product_name VARCHAR(128) NOT NULL DEFAULT '',
        ADD COLUMN console_template VARCHAR(64),
        ADD COLUMN provider_key VARCHAR(64) NOT NULL DEFAULT '',
        ADD COLUMN plugin_key VARCHAR(64) NOT NULL DEFAULT '',
        ADD COLUMN supplier_id INTEGER REFERENCES suppliers(id),
        ADD COLUMN hostname VARCHAR(128) NOT NULL DEFAULT '',
        ADD COLUMN password_sealed TEXT NOT NULL DEFAULT '',
        ADD COLUMN downstream_token CHAR(32) UNIQUE,
        ADD COLUMN ip VARCHAR(64) NOT NULL DEFAULT '',
        ADD COLUMN assigned_ips JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(assigned_ips) = 'array'),
        ADD COLUMN os VARCHAR(128) NOT NULL DEFAULT '',
        ADD COLUMN username VARCHAR(64) NOT NULL DEFAULT '',
        ADD COLUMN port INTEGER,
        ADD COLUMN upstream_status VARCHAR(32) NOT NULL DEFAULT '',
        ADD COLUMN provisioning_stage VARCHAR(32) NOT NULL DEFAULT '',
        ADD COLUMN stage_changed_at TIMESTAMPTZ,
        ADD COLUMN failure_code VARCHAR(64),
        ADD COLUMN failure_reason VARCHAR(255),
        ADD COLUMN auto_renew BOOLEAN NOT NULL DEFAULT FALSE,
        ADD COLUMN activated_at TIMESTAMPTZ,
        ADD COLUMN suspended_at TIMESTAMPTZ,
        ADD COLUMN terminated_at TIMESTAMPTZ,
        ADD COLUMN cancelled_at TIMESTAMPTZ,
        ADD COLUMN upstream_synced_at TIMESTAMPTZ;
      CREATE INDEX services_status_idx ON services (status, stage_changed_at);
      CREATE INDEX services_due_idx ON services (next_due_at) WHERE status IN ('active', 'suspended');
      CREATE INDEX services_supplier_idx ON services (supplier_id);

      CREATE TABLE service_upstream_bindings (
        service_id INTEGER PRIMARY KEY REFERENCES services(id),
        product_id INTEGER NOT NULL REFERENCES products(id),
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id),
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        provider_key VARCHAR(64) NOT NULL,
        upstream_product_id VARCHAR(64) NOT NULL,
        upstream_order_id BIGINT,
        upstream_invoice_id BIGINT,
        upstream_host_id BIGINT,
        checkout_attempted_at TIMESTAMPTZ,
        pay_attempted_at TIMESTAMPTZ,
        bound_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT service_upstream_bindings_host_once UNIQUE (supplier_id, upstream_host_id)
      );
      CREATE INDEX service_upstream_bindings_plugin_idx ON service_upstream_bindings (plugin_id);

      CREATE TABLE service_events (
        id BIGSERIAL PRIMARY KEY,
        service_id INTEGER NOT NULL REFERENCES services(id),
        kind VARCHAR(24) NOT NULL,
        stage VARCHAR(32) NOT NULL,
        status VARCHAR(16) NOT NULL CHECK (status IN ('started', 'succeeded', 'failed', 'info')),
        message VARCHAR(255) NOT NULL DEFAULT '',
        detail JSONB NOT NULL DEFAULT '{}'::jsonb,
        workflow_id VARCHAR(255),
        operator_type VARCHAR(16) NOT NULL DEFAULT 'system' CHECK (operator_type IN ('admin', 'user', 'system')),
        operator_id INTEGER,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX service_events_service_idx ON service_events (service_id, id DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS service_events, service_upstream_bindings;
      ALTER TABLE services
        DROP COLUMN product_name, DROP COLUMN console_template, DROP COLUMN provider_key, DROP COLUMN plugin_key,
        DROP COLUMN supplier_id, DROP COLUMN hostname, DROP COLUMN password_sealed, DROP COLUMN downstream_token,
        DROP COLUMN ip, DROP COLUMN assigned_ips, DROP COLUMN os, DROP COLUMN username, DROP COLUMN port,
        DROP COLUMN upstream_status, DROP COLUMN provisioning_stage, DROP COLUMN stage_changed_at, DROP COLUMN failure_code,
        DROP COLUMN failure_reason, DROP COLUMN auto_renew, DROP COLUMN activated_at, DROP COLUMN suspended_at,
        DROP COLUMN terminated_at, DROP COLUMN cancelled_at, DROP COLUMN upstream_synced_at;
    `);
  },
};
