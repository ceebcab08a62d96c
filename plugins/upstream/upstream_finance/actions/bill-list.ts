import { BILL_LIST_MAX_PAGES, BILL_LIST_PAGE_SIZE } from '../constants.js';
import { UpstreamError } from '../client/upstream-error.js';
import { normaliseBill } from '../normalise/bill.js';
import type { FinanceAction } from './action-types.js';
import { readPagedList } from './paged-list.js';

/** An upstream that has no bill list answers the path with an HTTP 404 or 405 page. */
function isMissingEndpoint(err: unknown): boolean {
  return err instanceof UpstreamError && (err.httpStatus === 404 || err.httpStatus === 405);
}

/**
 * All bills of the account: `GET /billing/list?page=N&limit=100`, counted from the upstream's
 * total or, without one, until a short page. The spec's notes name no bill list, so an upstream
 * without one (HTTP 404/405 on the first page) is an answer, not a failure: `supported: false`, no bills.
 */
export const readBillList: FinanceAction = async ({ session }) => {
  const list = await readPagedList(session, {
    path: '/billing/list',
    pageSize: BILL_LIST_PAGE_SIZE,
    maxPages: BILL_LIST_MAX_PAGES,
    tooMany: '上游账单数量超出单次同步上限',
    item: normaliseBill,
    absent: isMissingEndpoint,
  });
  if (list.absent) return { message: '上游不提供账单列表', data: { supported: false, bills: [], total: 0, pages: 0, complete: false } };
  return { message: '已获取上游账单列表', data: { supported: true, bills: list.items, total: list.total, pages: list.pages, complete: list.complete } };
};
