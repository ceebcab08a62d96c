import type { Migration } from './types.js';

/**
 * Upgrades and downgrades of running services (`upgrade` invoices, fulfilled as the service
 * order kind `upgrade` by `upgrade:<invoice_no>`, the same path as renewals and traffic
 * packages):
 * - invoices, orders and service orders gain the kind `upgrade`; the ledger gains
 *   `upgrade_credit` (a downgrade's prorated difference, credited only once the upstream
 *   confirmed the change; one per invoice through its idempotency key);
 * - one pending change per service: at most one unpaid upgrade invoice (this index) and one open
 *   upgrade order (`service_upstream_orders_one_open`, migration 0009);
 * - the order carries the change: the target configuration and its price (the service's new
 *   locked price), the configuration and locked price it replaces, and the credit of a downgrade.
 */
export const migration0017ServiceUpgrades: Migration = {
  name: '0017-service-upgrades',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE invoices DROP CONSTRAINT invoices_type_check;
      ALTER TABLE invoices ADD CONSTRAINT invoices_type_check
        CHECK (type IN ('purchase', 'renew', 'traffic_package', 'upgrade', 'recharge', 'deduction', 'refund'));
      ALTER TABLE orders DROP CONSTRAINT orders_type_check;
      ALTER TABLE orders ADD CONSTRAINT orders_type_check CHECK (type IN ('new_purchase', 'renewal', 'traffic_package', 'upgrade'));

      ALTER TABLE account_transactions DROP CONSTRAINT account_transactions_sign;
      ALTER TABLE account_transactions ADD CONSTRAINT account_transactions_sign CHECK (
        (type IN ('recharge', 'admin_recharge', 'payment_reversal', 'refund', 'upgrade_credit') AND amount > 0)
        OR (type IN ('payment', 'admin_deduction') AND amount < 0)
      );

      ALTER TABLE service_upstream_orders DROP CONSTRAINT service_upstream_orders_kind_check;
      ALTER TABLE service_upstream_orders ADD CONSTRAINT service_upstream_orders_kind_check CHECK (kind IN ('renew', 'traffic_package', 'upgrade'));
      ALTER TABLE service_upstream_orders
        ADD COLUMN upgrade_config JSONB CHECK (upgrade_config IS NULL OR jsonb_typeof(upgrade_config) = 'object'),
        ADD COLUMN upgrade_price NUMERIC(14,2) CHECK (upgrade_price IS NULL OR upgrade_price >= 0),
        ADD COLUMN config_before JSONB,
        ADD COLUMN price_before NUMERIC(14,2),
        ADD COLUMN upgrade_credit NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (upgrade_credit >= 0),
        ADD COLUMN credit_transaction_id INTEGER UNIQUE REFERENCES account_transactions(id);
      ALTER TABLE service_upstream_orders DROP CONSTRAINT service_upstream_orders_kind_fields;
      ALTER TABLE service_upstream_orders ADD CONSTRAINT service_upstream_orders_kind_fields CHECK (
        (kind = 'renew' AND billing_period IS NOT NULL AND months IS NOT NULL AND package_id IS NULL AND upgrade_config IS NULL)
        OR (kind = 'traffic_package' AND package_id IS NOT NULL AND billing_period IS NULL AND months IS NULL AND upgrade_config IS NULL)
        OR (kind = 'upgrade' AND upgrade_config IS NOT NULL AND upgrade_price IS NOT NULL AND package_id IS NULL AND months IS NULL)
      );
      -- A credit is booked only for a completed downgrade.
      ALTER TABLE service_upstream_orders ADD CONSTRAINT service_upstream_orders_credit_when_done
        CHECK (credit_transaction_id IS NULL OR (kind = 'upgrade' AND status = 'succeeded'));

      CREATE UNIQUE INDEX invoices_one_unpaid_upgrade ON invoices (service_id) WHERE type = 'upgrade' AND status = 'unpaid';
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS invoices_one_unpaid_upgrade;
      ALTER TABLE service_upstream_orders DROP CONSTRAINT IF EXISTS service_upstream_orders_credit_when_done;
      ALTER TABLE service_upstream_orders DROP CONSTRAINT service_upstream_orders_kind_fields;
      ALTER TABLE service_upstream_orders ADD CONSTRAINT service_upstream_orders_kind_fields CHECK (
        (kind = 'renew' AND billing_period IS NOT NULL AND months IS NOT NULL AND package_id IS NULL)
        OR (kind = 'traffic_package' AND package_id IS NOT NULL AND billing_period IS NULL AND months IS NULL)
      );
      ALTER TABLE service_upstream_orders
        DROP COLUMN credit_transaction_id, DROP COLUMN upgrade_credit, DROP COLUMN price_before,
        DROP COLUMN config_before, DROP COLUMN upgrade_price, DROP COLUMN upgrade_config;
      ALTER TABLE service_upstream_orders DROP CONSTRAINT service_upstream_orders_kind_check;
      ALTER TABLE service_upstream_orders ADD CONSTRAINT service_upstream_orders_kind_check CHECK (kind IN ('renew', 'traffic_package'));
      ALTER TABLE account_transactions DROP CONSTRAINT account_transactions_sign;
      ALTER TABLE account_transactions ADD CONSTRAINT account_transactions_sign CHECK (
        (type IN ('recharge', 'admin_recharge', 'payment_reversal', 'refund') AND amount > 0)
        OR (type IN ('payment', 'admin_deduction') AND amount < 0)
      );
      ALTER TABLE orders DROP CONSTRAINT orders_type_check;
      ALTER TABLE orders ADD CONSTRAINT orders_type_check CHECK (type IN ('new_purchase', 'renewal', 'traffic_package'));
      ALTER TABLE invoices DROP CONSTRAINT invoices_type_check;
      ALTER TABLE invoices ADD CONSTRAINT invoices_type_check
        CHECK (type IN ('purchase', 'renew', 'traffic_package', 'recharge', 'deduction', 'refund'));
    `);
  },
};
