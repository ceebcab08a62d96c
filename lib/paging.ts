/**
 * The paging window of every list (docs/api.md "Paging"): a list can be paged through its first
 * LIST_WINDOW rows in its order (`page × page_size` at most this; a deeper page is refused with
 * 42200), and its `total` counts the matching rows up to this many. A list of more matches answers
 * LIST_WINDOW: narrow the filters, or read the list's `…/summary`, for the exact figure. So no
 * page and no count reads more than LIST_WINDOW + 1 index entries, whatever the table holds
 * (issue #35: at 3,000,000 invoices an exact count alone took longer than the page).
 */
export const LIST_WINDOW = 10_000;

/** The deepest page of `pageSize` rows inside the window. */
export function lastPageWithin(pageSize: number): number {
  return Math.max(1, Math.floor(LIST_WINDOW / pageSize));
}
