/**
 * A status count kept as append-only delta rows (docs/operations.md "Dashboard"): `deltas`
 * (status, delta) gets +1 for the status a row of `table` enters and −1 for the one it leaves,
 * from triggers in the writer's own transaction (a bulk insert or delete one row per status of
 * its statement; a TRUNCATE empties it). The active services (0044) and the open tickets (0051)
 * are kept this way; `foldDeltaRows` folds them.
 */
export type StatusDeltas = { table: string; deltas: string; status: string };

/** The delta table, its functions and triggers (no seed). */
export function statusDeltasSql({ table, deltas, status }: StatusDeltas): string {
  return `
      CREATE TABLE ${deltas} (
        id BIGSERIAL PRIMARY KEY,
        status ${status} NOT NULL,
        delta INTEGER NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX ${deltas}_status_idx ON ${deltas} (status) INCLUDE (delta);

      CREATE FUNCTION ${deltas}_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO ${deltas} (status, delta) SELECT status, count(*) FROM added GROUP BY status;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO ${deltas} (status, delta) SELECT status, -count(*) FROM removed GROUP BY status;
        ELSE
          DELETE FROM ${deltas};
        END IF;
        RETURN NULL;
      END $$;
      CREATE FUNCTION ${deltas}_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${deltas} (status, delta) VALUES (OLD.status, -1), (NEW.status, 1);
        RETURN NULL;
      END $$;
      CREATE TRIGGER ${table}_status_deltas_insert AFTER INSERT ON ${table}
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ${deltas}_rows();
      CREATE TRIGGER ${table}_status_deltas_delete AFTER DELETE ON ${table}
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ${deltas}_rows();
      CREATE TRIGGER ${table}_status_deltas_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ${deltas}_rows();
      CREATE TRIGGER ${table}_status_deltas_update AFTER UPDATE OF status ON ${table}
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION ${deltas}_move();
`;
}

/** The rows of the delta table made from the counts of `table` (a migration's seed, the generator's rebuild). */
export function statusDeltasSeedSql({ table, deltas }: StatusDeltas): string {
  return `INSERT INTO ${deltas} (status, delta) SELECT status, count(*) FROM ${table} GROUP BY status`;
}

/** What `statusDeltasSql` made, dropped. */
export function statusDeltasDropSql({ table, deltas }: StatusDeltas): string {
  return `
      DROP TRIGGER IF EXISTS ${table}_status_deltas_insert ON ${table};
      DROP TRIGGER IF EXISTS ${table}_status_deltas_delete ON ${table};
      DROP TRIGGER IF EXISTS ${table}_status_deltas_truncate ON ${table};
      DROP TRIGGER IF EXISTS ${table}_status_deltas_update ON ${table};
      DROP FUNCTION IF EXISTS ${deltas}_rows(), ${deltas}_move();
      DROP TABLE IF EXISTS ${deltas};
`;
}
