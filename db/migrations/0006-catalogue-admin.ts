import type { Migration } from './types.js';

/**
 * Catalogue administration: menus, groups and categories are soft-deleted like products (a
 * deleted product, which invoices may reference, keeps pointing at its menu, group and
 * category, so those rows can never be removed). Codes of deleted menus stay reserved. The
 * audit list is read newest first across all entities.
 */
export const migration0006CatalogueAdmin: Migration = {
  name: '0006-catalogue-admin',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE product_menus ADD COLUMN deleted_at TIMESTAMPTZ;
      ALTER TABLE product_groups ADD COLUMN deleted_at TIMESTAMPTZ;
      ALTER TABLE product_categories ADD COLUMN deleted_at TIMESTAMPTZ;
      CREATE INDEX catalogue_audit_logs_created_idx ON catalogue_audit_logs (created_at DESC, id DESC);
      CREATE INDEX products_updated_idx ON products (updated_at DESC, id DESC) WHERE deleted_at IS NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS products_updated_idx;
      DROP INDEX IF EXISTS catalogue_audit_logs_created_idx;
      ALTER TABLE product_categories DROP COLUMN IF EXISTS deleted_at;
      ALTER TABLE product_groups DROP COLUMN IF EXISTS deleted_at;
      ALTER TABLE product_menus DROP COLUMN IF EXISTS deleted_at;
    `);
  },
};
