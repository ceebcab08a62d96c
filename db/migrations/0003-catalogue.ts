import type { Migration } from './types.js';

const PRODUCT_TYPES_SQL = "('cloud_server', 'game_cloud', 'cloud_desktop', 'bare_metal', 'cdn', 'other', 'physical_machine', 'web_hosting')";

/**
 * The catalogue: first-level menus (each bound to one of the 8 fixed product types), second-level
 * groups, third-level categories, products with their flat pricing map and config option items,
 * the product's upstream binding, and the audit log of catalogue changes.
 *
 * A product's `product_type`/`service_type_code` and `first_product_group_id` are kept equal to
 * its menu's by the domain code (in the same transaction as any move or type change); the CHECKs
 * below keep the values inside the fixed set.
 */
export const migration0003Catalogue: Migration = {
  name: '0003-catalogue',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE product_menus (
        id SERIAL PRIMARY KEY,
        code VARCHAR(32) NOT NULL UNIQUE CHECK (code NOT IN ${PRODUCT_TYPES_SQL}),
        name VARCHAR(64) NOT NULL,
        icon VARCHAR(255) NOT NULL DEFAULT '',
        product_type VARCHAR(32) NOT NULL CHECK (product_type IN ${PRODUCT_TYPES_SQL}),
        is_visible SMALLINT NOT NULL DEFAULT 1 CHECK (is_visible IN (0, 1)),
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX product_menus_sort_idx ON product_menus (sort_order, id);

      CREATE TABLE product_groups (
        id SERIAL PRIMARY KEY,
        first_product_group_id INTEGER NOT NULL REFERENCES product_menus(id),
        name VARCHAR(64) NOT NULL,
        description VARCHAR(500) NOT NULL DEFAULT '',
        is_visible SMALLINT NOT NULL DEFAULT 1 CHECK (is_visible IN (0, 1)),
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX product_groups_menu_idx ON product_groups (first_product_group_id, sort_order, id);

      CREATE TABLE product_categories (
        id SERIAL PRIMARY KEY,
        second_product_group_id INTEGER NOT NULL REFERENCES product_groups(id),
        name VARCHAR(64) NOT NULL,
        description VARCHAR(500) NOT NULL DEFAULT '',
        is_visible SMALLINT NOT NULL DEFAULT 1 CHECK (is_visible IN (0, 1)),
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX product_categories_group_idx ON product_categories (second_product_group_id, sort_order, id);

      CREATE TABLE products (
        id SERIAL PRIMARY KEY,
        first_product_group_id INTEGER NOT NULL REFERENCES product_menus(id),
        second_product_group_id INTEGER REFERENCES product_groups(id),
        product_group_id INTEGER REFERENCES product_categories(id),
        name VARCHAR(128) NOT NULL,
        display_name VARCHAR(128) NOT NULL DEFAULT '',
        description TEXT NOT NULL DEFAULT '',
        product_type VARCHAR(32) NOT NULL CHECK (product_type IN ${PRODUCT_TYPES_SQL}),
        service_type_code VARCHAR(32) NOT NULL CHECK (service_type_code = product_type),
        pricing JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(pricing) = 'object'),
        config_options JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(config_options) = 'array'),
        purchase_template VARCHAR(64),
        console_template VARCHAR(64),
        stock_control BOOLEAN NOT NULL DEFAULT FALSE,
        stock_qty INTEGER NOT NULL DEFAULT 0 CHECK (stock_qty >= 0),
        status VARCHAR(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'hidden')),
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        deleted_at TIMESTAMPTZ,
        CONSTRAINT products_category_needs_group CHECK (product_group_id IS NULL OR second_product_group_id IS NOT NULL)
      );
      CREATE INDEX products_menu_idx ON products (first_product_group_id) WHERE deleted_at IS NULL;
      CREATE INDEX products_group_idx ON products (second_product_group_id) WHERE deleted_at IS NULL;
      CREATE INDEX products_category_idx ON products (product_group_id) WHERE deleted_at IS NULL;
      CREATE INDEX products_listing_idx ON products (sort_order, id) WHERE deleted_at IS NULL AND status = 'active';

      CREATE TABLE product_upstream_bindings (
        product_id INTEGER PRIMARY KEY REFERENCES products(id),
        plugin_id INTEGER REFERENCES plugins(id),
        supplier_id INTEGER,
        provider_key VARCHAR(64) NOT NULL DEFAULT '',
        upstream_product_id VARCHAR(64) NOT NULL DEFAULT '',
        config_template JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config_template) = 'object'),
        provisioning_policy JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(provisioning_policy) = 'object'),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX product_upstream_bindings_plugin_idx ON product_upstream_bindings (plugin_id);
      CREATE INDEX product_upstream_bindings_supplier_idx ON product_upstream_bindings (supplier_id);

      CREATE TABLE catalogue_audit_logs (
        id BIGSERIAL PRIMARY KEY,
        entity_type VARCHAR(16) NOT NULL CHECK (entity_type IN ('menu', 'group', 'category', 'product')),
        entity_id INTEGER NOT NULL,
        action VARCHAR(32) NOT NULL,
        changes JSONB NOT NULL DEFAULT '{}'::jsonb,
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX catalogue_audit_logs_entity_idx ON catalogue_audit_logs (entity_type, entity_id, created_at DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(
      'DROP TABLE IF EXISTS catalogue_audit_logs, product_upstream_bindings, products, product_categories, product_groups, product_menus CASCADE',
    );
  },
};
