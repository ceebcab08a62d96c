import type { Migration } from './types.js';

/**
 * Upstream price drift (issue #29 §2). `upstream_price_observations` is the last price seen per
 * bound product, billing period and price point (`option_key`: `base`, `<field>:<sub id>`, or
 * `service:<id>` for the renewal of one service), with ours beside it; `version` grows by one
 * each time either changes, so a change is seen once. `upstream_price_findings` is one row per
 * point and observed change whose margin fell below the floor (or, for a service, whose renewal
 * runs at a loss): the UNIQUE key (product, period, point, version) makes it one finding, and
 * one admin notice, per change, never one per run. `below_cost` rows that are not resolved hold
 * the product when the `economics.hold_below_cost` setting is on.
 */
export const migration0028UpstreamPriceDrift: Migration = {
  name: '0028-upstream-price-drift',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE upstream_price_observations (
        product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        billing_period VARCHAR(16) NOT NULL,
        option_key VARCHAR(64) NOT NULL,
        upstream_price NUMERIC(14,2) NOT NULL CHECK (upstream_price >= 0),
        our_price NUMERIC(14,2) NOT NULL CHECK (our_price >= 0),
        previous_upstream_price NUMERIC(14,2),
        version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
        observed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        changed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (product_id, billing_period, option_key)
      );

      CREATE TABLE upstream_price_findings (
        id BIGSERIAL PRIMARY KEY,
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('price', 'renewal')),
        product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        service_id INTEGER REFERENCES services(id) ON DELETE CASCADE,
        billing_period VARCHAR(16) NOT NULL,
        option_key VARCHAR(64) NOT NULL,
        option_label VARCHAR(191) NOT NULL DEFAULT '',
        observation_version INTEGER NOT NULL,
        old_upstream_price NUMERIC(14,2),
        new_upstream_price NUMERIC(14,2) NOT NULL,
        our_price NUMERIC(14,2) NOT NULL,
        margin_percent NUMERIC(12,2),
        margin_floor_percent NUMERIC(6,2) NOT NULL,
        below_cost BOOLEAN NOT NULL,
        state VARCHAR(16) NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'acknowledged', 'resolved')),
        acknowledged_by INTEGER,
        acknowledged_at TIMESTAMPTZ,
        resolved_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT upstream_price_findings_once UNIQUE (product_id, billing_period, option_key, observation_version),
        CONSTRAINT upstream_price_findings_service CHECK ((kind = 'renewal') = (service_id IS NOT NULL)),
        CONSTRAINT upstream_price_findings_resolved CHECK ((state = 'resolved') = (resolved_at IS NOT NULL))
      );
      CREATE INDEX upstream_price_findings_state_idx ON upstream_price_findings (state, id DESC);
      CREATE INDEX upstream_price_findings_hold_idx ON upstream_price_findings (product_id) WHERE below_cost AND kind = 'price' AND state <> 'resolved';
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS upstream_price_findings; DROP TABLE IF EXISTS upstream_price_observations;');
  },
};
