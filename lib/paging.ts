/**
 * The paging window of every list (docs/api.md "Paging"): a list can be paged through its first
 * LIST_WINDOW rows in its order (`page × page_size` at most this; a deeper page is refused with
 * 42200), and its `total` counts the matching rows up to this many. A list of more matches answers
 * LIST_WINDOW: narrow the filters, or read the list's `…/summary`, for the exact figure. So no
 * page and no count reads more than LIST_WINDOW + 1 index entries, whatever the table holds
 * (issue #35: at 3,000,000 invoices an exact count alone took longer than the page).
 */
export const LIST_WINDOW = 10_000;

/**
 * The window of the log lists (request, audit, plugin runtime, task run and notification logs;
 * docs/operations.md "Log tables at volume"): their filters are read from the table rather than
 * from an index alone, and counting 10,000 such rows cost about five times what a page does.
 */
export const LOG_LIST_WINDOW = 2_000;

/** The deepest page of `pageSize` rows inside a window. */
export function lastPageWithin(pageSize: number, window: number = LIST_WINDOW): number {
  return Math.max(1, Math.floor(window / pageSize));
}
