import type { Migration } from './types.js';

/**
 * Renewals and traffic packages of running services: each paid `renew` or `traffic_package`
 * invoice becomes one `service_upstream_orders` row (UNIQUE per invoice) that its workflow
 * (`renew:<invoice_no>`, `traffic:<invoice_no>`) drives. The upstream invoice it pays is recorded
 * on the row before it is paid (UNIQUE per supplier: one upstream bill settles one local order),
 * with a marker before every committing call so a retry reconciles first. The local effect
 * (due date moved, order completed) and `succeeded` are written in one transaction, once.
 *
 * Invoices gain the rules that keep one renewal at a time: at most one unpaid renewal and one
 * unpaid traffic package invoice per service, and one scheduler-made renewal invoice per service
 * and due date (`payload.schedule_key`).
 */
export const migration0009ServiceOrders: Migration = {
  name: '0009-service-orders',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE service_upstream_orders (
        id SERIAL PRIMARY KEY,
        invoice_id INTEGER NOT NULL UNIQUE REFERENCES invoices(id),
        service_id INTEGER NOT NULL REFERENCES services(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('renew', 'traffic_package')),
        billing_period VARCHAR(32),
        months INTEGER CHECK (months IS NULL OR months >= 1),
        package_id INTEGER CHECK (package_id IS NULL OR package_id > 0),
        package_name VARCHAR(128) NOT NULL DEFAULT '',
        size_gb INTEGER,
        amount NUMERIC(14,2) NOT NULL CHECK (amount >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        supplier_id INTEGER REFERENCES suppliers(id),
        upstream_host_id BIGINT,
        upstream_requested_at TIMESTAMPTZ,
        upstream_invoice_id BIGINT,
        upstream_amount NUMERIC(14,2),
        upstream_pay_requested_at TIMESTAMPTZ,
        upstream_paid_at TIMESTAMPTZ,
        status VARCHAR(16) NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'processing', 'awaiting_admin', 'succeeded', 'cancelled')),
        stage VARCHAR(32) NOT NULL DEFAULT 'queued',
        stage_changed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        runs INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0),
        failure_code VARCHAR(64),
        failure_reason VARCHAR(255),
        due_before TIMESTAMPTZ,
        due_after TIMESTAMPTZ,
        refund_id INTEGER UNIQUE REFERENCES refunds(id),
        workflow_id VARCHAR(255) NOT NULL,
        completed_at TIMESTAMPTZ,
        cancelled_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT service_upstream_orders_kind_fields CHECK (
          (kind = 'renew' AND billing_period IS NOT NULL AND months IS NOT NULL AND package_id IS NULL)
          OR (kind = 'traffic_package' AND package_id IS NOT NULL AND billing_period IS NULL AND months IS NULL)
        ),
        CONSTRAINT service_upstream_orders_target CHECK ((supplier_id IS NULL) = (upstream_host_id IS NULL)),
        CONSTRAINT service_upstream_orders_upstream_invoice_once UNIQUE (supplier_id, upstream_invoice_id),
        CONSTRAINT service_upstream_orders_paid_needs_invoice CHECK (upstream_paid_at IS NULL OR upstream_invoice_id IS NOT NULL),
        CONSTRAINT service_upstream_orders_status_facts CHECK (
          (status = 'succeeded' AND completed_at IS NOT NULL AND cancelled_at IS NULL AND (supplier_id IS NULL OR upstream_paid_at IS NOT NULL))
          OR (status = 'cancelled' AND cancelled_at IS NOT NULL AND completed_at IS NULL AND upstream_paid_at IS NULL)
          OR (status IN ('pending', 'processing', 'awaiting_admin') AND completed_at IS NULL AND cancelled_at IS NULL)
        )
      );
      -- One renewal and one traffic purchase at a time per service: the upstream cannot tell two
      -- concurrent ones of the same kind apart when a reconciliation looks at the host's bills.
      CREATE UNIQUE INDEX service_upstream_orders_one_open ON service_upstream_orders (service_id, kind)
        WHERE status IN ('pending', 'processing', 'awaiting_admin');
      CREATE INDEX service_upstream_orders_status_idx ON service_upstream_orders (status, stage_changed_at);
      CREATE INDEX service_upstream_orders_service_idx ON service_upstream_orders (service_id, id DESC);
      CREATE INDEX service_upstream_orders_user_idx ON service_upstream_orders (user_id, id DESC);

      CREATE UNIQUE INDEX invoices_one_unpaid_renewal ON invoices (service_id) WHERE type = 'renew' AND status = 'unpaid';
      CREATE UNIQUE INDEX invoices_one_unpaid_traffic_package ON invoices (service_id) WHERE type = 'traffic_package' AND status = 'unpaid';
      CREATE UNIQUE INDEX invoices_renewal_schedule_key ON invoices (service_id, (payload->>'schedule_key'))
        WHERE type = 'renew' AND payload ? 'schedule_key';
      CREATE INDEX invoices_service_idx ON invoices (service_id, id DESC) WHERE service_id IS NOT NULL;

      CREATE INDEX service_events_credential_idx ON service_events (service_id, created_at) WHERE kind = 'credential';
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS service_events_credential_idx;
      DROP INDEX IF EXISTS invoices_service_idx;
      DROP INDEX IF EXISTS invoices_renewal_schedule_key;
      DROP INDEX IF EXISTS invoices_one_unpaid_traffic_package;
      DROP INDEX IF EXISTS invoices_one_unpaid_renewal;
      DROP TABLE IF EXISTS service_upstream_orders;
    `);
  },
};
