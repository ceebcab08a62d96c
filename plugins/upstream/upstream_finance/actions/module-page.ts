import { MODULE_ITEMS_MAX, flattenModuleRecord } from '../normalise/module-record.js';
import { asArray, asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { readText, requirePositiveInt } from './payload.js';

const PAGE_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A custom module page: `GET /provision/custom/content` with `Authorization: JWT <jwt>` and
 * the query parameters `id` (host id), `key` (the page, e.g. `nat_rules`) and `jwt`.
 */
export const readModulePage: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const page = readText(input.payload, 'page', { required: true, max: 64, pattern: PAGE_KEY });
  const envelope = await session.call({ method: 'GET', path: '/provision/custom/content', query: { id: hostId, key: page }, auth: 'module_page' });
  const data = asRecord(envelope.data) ?? {};
  const list = asArray(data['list']);
  const items = list.slice(0, MODULE_ITEMS_MAX).map(flattenModuleRecord);
  // The page's own scalar fields beside the list (e.g. `max_rules`, `port_min`, `port_max`).
  const { list: _list, total: _total, key: _key, ...rest } = data;
  return {
    message: '已获取上游模块数据',
    data: { host_id: hostId, page, items, total: asInt(data['total']) ?? list.length, truncated: list.length > MODULE_ITEMS_MAX, meta: flattenModuleRecord(rest) },
  };
};
