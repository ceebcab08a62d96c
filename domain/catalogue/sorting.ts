export type SortSpec<K extends string> = { key: K; direction: 'ASC' | 'DESC' };

/**
 * An ORDER BY from a whitelisted key (the column comes from `columns`, never from input),
 * always ending in the id so pages are stable.
 */
export function orderBy<K extends string>(sort: SortSpec<K> | undefined, columns: Record<K, string>, fallback: SortSpec<K>, idColumn: string): string {
  const chosen = sort && Object.hasOwn(columns, sort.key) ? sort : fallback;
  const direction = chosen.direction === 'DESC' ? 'DESC' : 'ASC';
  return `ORDER BY ${columns[chosen.key]} ${direction}, ${idColumn} ${direction}`;
}

/** LIMIT/OFFSET of a validated page (integers written inline). */
export function pageSql(query: { page: number; page_size: number }): string {
  const limit = query.page_size;
  const offset = (query.page - 1) * query.page_size;
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 1 || offset < 0) {
    throw new Error(`invalid paging: page ${query.page}, page_size ${query.page_size}`);
  }
  return `LIMIT ${limit} OFFSET ${offset}`;
}

/** `%keyword%` for ILIKE with the wildcards of the keyword escaped. */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
