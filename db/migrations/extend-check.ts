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
      -- Each quoted literal of the definition is a value; an array literal ('{a,b}') holds several.
      SELECT array_agg(v) INTO existing FROM (
        SELECT unnest(CASE WHEN m[1] ~ '^[{].*[}]$' THEN string_to_array(btrim(m[1], '{}'), ',') ELSE ARRAY[m[1]] END) AS v
          FROM regexp_matches(c.def, '''([^'']+)''', 'g') AS m) vals;
      existing := ARRAY(SELECT DISTINCT unnest(existing || ARRAY[${list}]::text[]) ORDER BY 1);
      EXECUTE format('ALTER TABLE ${table} DROP CONSTRAINT %I', c.conname);
      -- Written as an IN list, so the next extension reads one literal per value again.
      EXECUTE format('ALTER TABLE ${table} ADD CONSTRAINT %I CHECK (${column}::text IN (%s))', c.conname,
        (SELECT string_agg(quote_literal(x), ', ') FROM unnest(existing) AS x));
    END $$;`;
}
