import { unexpectedResponse } from '../client/upstream-error.js';
import type { FinanceSession } from '../client/session.js';
import { asArray, asInt, asRecord, type UnknownRecord } from '../read.js';

/** Names an upstream answers a list's total under (the upstream notes name none). */
const TOTAL_FIELDS = ['total', 'count', 'sum'] as const;

/** A page's total: the first of `total`, `count`, `sum` that is a whole number ≥ 0; null when none is. */
export function listTotalOf(data: UnknownRecord): number | null {
  for (const field of TOTAL_FIELDS) {
    const value = asInt(data[field]);
    if (value !== null && value >= 0) return value;
  }
  return null;
}

/** `absent`: the first page failed in the way `absent` recognises (an upstream without the list). */
export type PagedList<T> = { items: T[]; total: number; pages: number; complete: boolean; absent: boolean };

/**
 * Every item of a paged list (`GET <path>?page=N&limit=<pageSize>`), keyed by its `id`. The page
 * count comes from the total of the first page (`total`, `count` or `sum`; `max_page` when only
 * that is given); an upstream that answers no total is paged until a short page. `complete`: the
 * list held every item of its total (without a total: no item came twice, i.e. nothing moved
 * between pages). More than `maxPages` pages is refused (`tooMany`) rather than looped on.
 */
export async function readPagedList<T>(
  session: FinanceSession,
  list: {
    path: string;
    pageSize: number;
    maxPages: number;
    tooMany: string;
    item: (record: UnknownRecord, id: number) => T;
    absent?: (err: unknown) => boolean;
  },
): Promise<PagedList<T>> {
  const items = new Map<number, T>();
  let received = 0;
  let total: number | null = null;
  let pages: number | null = null;
  let page = 1;
  for (; ; page += 1) {
    if (page > list.maxPages) throw unexpectedResponse(list.tooMany);
    let envelope;
    try {
      envelope = await session.call({ method: 'GET', path: list.path, query: { page, limit: list.pageSize } });
    } catch (err) {
      if (page === 1 && list.absent?.(err)) return { items: [], total: 0, pages: 0, complete: false, absent: true };
      throw err;
    }
    const data = asRecord(envelope.data) ?? {};
    const rows = asArray(data['list']);
    if (page === 1) {
      total = listTotalOf(data);
      const maxPage = asInt(data['max_page']);
      pages = total !== null ? Math.ceil(total / list.pageSize) : maxPage !== null && maxPage >= 0 ? maxPage : null;
      if (pages !== null && pages > list.maxPages) throw unexpectedResponse(list.tooMany);
    }
    for (const raw of rows) {
      const record = asRecord(raw);
      const id = record ? asInt(record['id']) : null;
      if (record && id !== null) {
        received += 1;
        items.set(id, list.item(record, id));
      }
    }
    if (pages !== null ? page >= pages : rows.length < list.pageSize) break;
  }
  const all = [...items.values()];
  return {
    items: all,
    total: total ?? all.length,
    pages: Math.max(pages ?? page, 0),
    complete: total !== null ? all.length === total : all.length === received,
    absent: false,
  };
}
