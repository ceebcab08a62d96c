import { HOST_LIST_MAX_PAGES, HOST_LIST_PAGE_SIZE } from '../constants.js';
import { normaliseHostListItem } from '../normalise/host.js';
import type { FinanceAction } from './action-types.js';
import { readPagedList } from './paged-list.js';

/** All hosts: pages of `limit=100`, counted from the upstream's total or, without one, until a short page. */
export const readHostList: FinanceAction = async ({ session }) => {
  const list = await readPagedList(session, {
    path: '/host/list',
    pageSize: HOST_LIST_PAGE_SIZE,
    maxPages: HOST_LIST_MAX_PAGES,
    tooMany: '上游主机数量超出单次同步上限',
    item: normaliseHostListItem,
  });
  return {
    message: '已获取上游主机列表',
    data: { hosts: list.items, total: list.total, pages: list.pages, complete: list.complete },
  };
};
