import type { Migration } from './types.js';

/**
 * The upstream attempts a provisioning left behind when it failed over to another binding (issue
 * #38, docs/fulfilment.md "Failover"): one row per service and supplier it moved away from, written
 * in the transaction that moves the service's binding (`service_upstream_bindings`) to the next
 * supplier, with what the first supplier held for it: the order, the bill (opened, never paid:
 * the move requires that no payment was sent) and the host. Reconciliation reads it so an unpaid
 * bill left at the first supplier is not an unmatched charge; admins read it in the provisioning
 * detail. UNIQUE (service_id, supplier_id): a service leaves a supplier once (a replayed move
 * writes nothing twice). Expand only: the release before never reads it.
 */
export const migration0048ServiceUpstreamAttempts: Migration = {
  name: '0048-service-upstream-attempts',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE IF NOT EXISTS service_upstream_attempts (
        id BIGSERIAL PRIMARY KEY,
        service_id INTEGER NOT NULL REFERENCES services(id),
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id),
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        provider_key VARCHAR(64) NOT NULL DEFAULT '',
        upstream_product_id VARCHAR(64) NOT NULL,
        upstream_order_id BIGINT,
        upstream_invoice_id BIGINT,
        upstream_host_id BIGINT,
        checkout_attempted_at TIMESTAMPTZ,
        code VARCHAR(64) NOT NULL,
        reason VARCHAR(500) NOT NULL,
        workflow_id VARCHAR(255),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT service_upstream_attempts_once UNIQUE (service_id, supplier_id)
      );
      CREATE INDEX IF NOT EXISTS service_upstream_attempts_bill_idx ON service_upstream_attempts (supplier_id, upstream_invoice_id) WHERE upstream_invoice_id IS NOT NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS service_upstream_attempts;');
  },
};
