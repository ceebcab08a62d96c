import { BILL_LIST_MAX_PAGES, BILL_LIST_PAGE_SIZE } from '../constants.js';
import { UpstreamError, unexpectedResponse } from '../client/upstream-error.js';
import { normaliseBill, type BillItem } from '../normalise/bill.js';
import { asArray, asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';

/** An upstream that has no bill list answers the path with an HTTP 404 or 405 page. */
function isMissingEndpoint(err: unknown): boolean {
  return err instanceof UpstreamError && (err.httpStatus === 404 || err.httpStatus === 405);
}

/**
 * All bills of the account: `GET /billing/list?page=N&limit=100`, the page count computed from
 * the upstream's total. The spec's notes name no bill list, so an upstream without one (HTTP
 * 404/405 on the first page) is an answer, not a failure: `supported: false`, no bills.
 */
export const readBillList: FinanceAction = async ({ session }) => {
  const bills = new Map<number, BillItem>();
  let total = 0;
  let pages = 1;
  for (let page = 1; page <= pages; page += 1) {
    let envelope;
    try {
      envelope = await session.call({ method: 'GET', path: '/billing/list', query: { page, limit: BILL_LIST_PAGE_SIZE } });
    } catch (err) {
      if (page === 1 && isMissingEndpoint(err)) {
        return { message: '上游不提供账单列表', data: { supported: false, bills: [], total: 0, pages: 0, complete: false } };
      }
      throw err;
    }
    const data = asRecord(envelope.data) ?? {};
    if (page === 1) {
      total = Math.max(0, asInt(data['total']) ?? 0);
      pages = Math.ceil(total / BILL_LIST_PAGE_SIZE);
      if (pages > BILL_LIST_MAX_PAGES) throw unexpectedResponse('上游账单数量超出单次同步上限');
    }
    for (const raw of asArray(data['list'])) {
      const record = asRecord(raw);
      const id = record ? asInt(record['id']) : null;
      if (record && id !== null) bills.set(id, normaliseBill(record, id));
    }
  }
  const list = [...bills.values()];
  return { message: '已获取上游账单列表', data: { supported: true, bills: list, total, pages, complete: list.length === total } };
};
