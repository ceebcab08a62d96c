import { HOST_LIST_MAX_PAGES, HOST_LIST_PAGE_SIZE } from '../constants.js';
import { unexpectedResponse } from '../client/upstream-error.js';
import { normaliseHostListItem, type HostListItem } from '../normalise/host.js';
import { asArray, asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';

/** All hosts: pages of `limit=100`, the page count computed from the upstream's total. */
export const readHostList: FinanceAction = async ({ session }) => {
  const hosts = new Map<number, HostListItem>();
  let total = 0;
  let pages = 1;
  for (let page = 1; page <= pages; page += 1) {
    const envelope = await session.call({ method: 'GET', path: '/host/list', query: { page, limit: HOST_LIST_PAGE_SIZE } });
    const data = asRecord(envelope.data) ?? {};
    if (page === 1) {
      total = Math.max(0, asInt(data['total']) ?? 0);
      pages = Math.ceil(total / HOST_LIST_PAGE_SIZE);
      if (pages > HOST_LIST_MAX_PAGES) {
        throw unexpectedResponse('上游主机数量超出单次同步上限');
      }
    }
    for (const raw of asArray(data['list'])) {
      const record = asRecord(raw);
      const id = record ? asInt(record['id']) : null;
      if (record && id !== null) hosts.set(id, normaliseHostListItem(record, id));
    }
  }
  const list = [...hosts.values()];
  return {
    message: '已获取上游主机列表',
    data: { hosts: list, total, pages, complete: list.length === total },
  };
};
