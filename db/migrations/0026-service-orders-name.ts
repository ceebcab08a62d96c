import type { Migration } from './types.js';

const OLD = 'service_upstream_orders';
const NEW = 'service_orders';

/**
 * The paid work on an existing service (renewal, traffic package, upgrade) is a **service
 * order**: its table takes that name (docs/glossary.md), and "upstream order" is left to the
 * supplier's record of what we bought (the `upstream_*` columns). A rename keeps every row, id
 * and reference; the sequence, the constraints and the indexes named after the table are
 * renamed with it (`service_upstream_orders_one_open` → `service_orders_one_open`, …).
 */
export const migration0026ServiceOrdersName: Migration = {
  name: '0026-service-orders-name',
  async up({ context: sequelize }) {
    await sequelize.query(renameTable(OLD, NEW));
  },
  async down({ context: sequelize }) {
    await sequelize.query(renameTable(NEW, OLD));
  },
};

/** Renames the table, its id sequence, and every constraint and index whose name starts with the table's. */
function renameTable(from: string, to: string): string {
  return `
    ALTER TABLE ${from} RENAME TO ${to};
    ALTER SEQUENCE IF EXISTS ${from}_id_seq RENAME TO ${to}_id_seq;
    DO $$
    DECLARE
      r record;
    BEGIN
      -- A primary key or UNIQUE constraint renames its index with it.
      FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = '${to}'::regclass AND starts_with(conname, '${from}_') LOOP
        EXECUTE format('ALTER TABLE ${to} RENAME CONSTRAINT %I TO %I', r.conname, '${to}_' || substr(r.conname, ${from.length + 2}));
      END LOOP;
      FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE i.indrelid = '${to}'::regclass AND starts_with(c.relname, '${from}_') LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, '${to}_' || substr(r.relname, ${from.length + 2}));
      END LOOP;
    END $$;`;
}
