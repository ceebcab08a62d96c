/**
 * Adds a value to a `col IN (...)` CHECK constraint of a table, whatever other migrations added
 * to it before (the list is read from the catalogue, not repeated here), so two migrations that
 * each extend the same vocabulary do not undo each other.
 */
export function extendCheck(table: string, column: string, values: string[]): string {
  const list = values.map((v) => `'${v}'`).join(', ');
  return `
    DO $$
    DECLARE
      c record;
      existing text[];
    BEGIN
      SELECT con.conname, pg_get_constraintdef(con.oid) AS def INTO c
        FROM pg_constraint con
       WHERE con.conrelid = '${table}'::regclass AND con.contype = 'c'
         AND pg_get_constraintdef(con.oid) ~ '\\m${column}\\M\\)?::text = ANY'
         AND pg_get_constraintdef(con.oid) !~ '( AND | OR )'
       LIMIT 1;
      IF c.conname IS NULL THEN
        RAISE EXCEPTION 'no vocabulary CHECK on %.%', '${table}', '${column}';
      END IF;
      SELECT array_agg(m[1]) INTO existing FROM regexp_matches(c.def, '''([^'']+)''', 'g') AS m;
      existing := ARRAY(SELECT DISTINCT unnest(existing || ARRAY[${list}]::text[]) ORDER BY 1);
      EXECUTE format('ALTER TABLE ${table} DROP CONSTRAINT %I', c.conname);
      EXECUTE format('ALTER TABLE ${table} ADD CONSTRAINT %I CHECK (${column}::text = ANY (%L::text[]))', c.conname, existing);
    END $$;`;
}
