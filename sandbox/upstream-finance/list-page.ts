import type { SandboxState } from './state.js';

/**
 * A page of a list (`/host/list`, `/billing/list`) with its total answered the way the switch
 * says (`answerListTotalAs`): `total` (the default), `count`, `sum` with `max_page` (the page
 * count), or no total at all.
 */
export function listPageData(state: Pick<SandboxState, 'listTotal'>, list: unknown[], total: number, page: number, limit: number): Record<string, unknown> {
  switch (state.listTotal) {
    case 'count':
      return { list, count: total, page, limit };
    case 'sum':
      return { list, sum: total, max_page: Math.ceil(total / limit), page, limit };
    case 'none':
      return { list, page, limit };
    default:
      return { list, total, page, limit };
  }
}
