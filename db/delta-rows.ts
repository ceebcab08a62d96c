import { sqlOne, type SqlDeps } from './sql.js';

/**
 * Kept figures as append-only delta rows (docs/CONVENTIONS.md "Kept figures"): writers insert a
 * row of differences per key in their own transaction (never read and rewrite a shared row, so
 * concurrent writers neither wait nor deadlock nor lose an update) and reads sum a key's rows.
 * This folds them: every key with more than one row, or whose rows sum to nothing, is deleted
 * and its sums inserted back (none when they are all zero), in ONE statement, so a read before
 * or after sees the same figures; a row inserted meanwhile (not in its snapshot) is left for the
 * next fold, and a fold running at the same time skips the rows this one deleted.
 *
 * `keys` are the columns a figure is kept by (nullable ones compared with IS NOT DISTINCT FROM),
 * `sums` the columns added up. Names come from code, never from input.
 */
export type DeltaTable = { table: string; keys: readonly string[]; sums: readonly string[] };

export function foldDeltaRowsSql({ table, keys, sums }: DeltaTable): string {
  const k = keys.join(', ');
  const allZero = sums.map((c) => `sum(${c}) = 0`).join(' AND ');
  const anyNonZero = sums.map((c) => `sum(${c}) <> 0`).join(' OR ');
  const same = keys.map((c) => `t.${c} IS NOT DISTINCT FROM f.${c}`).join(' AND ');
  return `
    WITH folding AS (SELECT ${k} FROM ${table} GROUP BY ${k} HAVING count(*) > 1 OR (${allZero})),
    gone AS (DELETE FROM ${table} t USING folding f WHERE ${same} RETURNING t.*),
    kept AS (
      INSERT INTO ${table} (${k}, ${sums.join(', ')})
      SELECT ${k}, ${sums.map((c) => `sum(${c})`).join(', ')} FROM gone GROUP BY ${k} HAVING ${anyNonZero}
      RETURNING 1)
    SELECT (SELECT count(*) FROM gone)::int AS folded, (SELECT count(*) FROM kept)::int AS kept`;
}

/** Folds a delta table (see above): the rows deleted and the rows inserted in their place. */
export async function foldDeltaRows(deps: SqlDeps, delta: DeltaTable): Promise<{ folded: number; kept: number }> {
  return (await sqlOne<{ folded: number; kept: number }>(deps, foldDeltaRowsSql(delta), [])) ?? { folded: 0, kept: 0 };
}
