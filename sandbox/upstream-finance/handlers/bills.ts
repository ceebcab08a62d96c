import { listPageData } from '../list-page.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';
import type { SandboxInvoice } from '../state.js';

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function billView(invoice: SandboxInvoice) {
  return {
    id: invoice.id,
    type: invoice.type,
    status: invoice.status,
    total: invoice.total,
    credit: invoice.credit,
    hostid: [...invoice.hostIds],
    create_time: invoice.createdAt,
    paid_time: invoice.paidAt ?? 0,
  };
}

/**
 * `GET /billing/list?page=N&limit=N`: the account's bills (every type: product, renew,
 * flow_packet, upgrade; every status), oldest first so pages stay stable while new bills are
 * added; `limit` ≤ 100 is the page size, the caller computes the pages from `total`.
 */
export const billListRoute: SandboxRoute = {
  method: 'GET',
  path: '/billing/list',
  auth: 'required',
  handle({ state, account, query }) {
    const page = positiveInt(query['page'], 1);
    const limit = Math.min(positiveInt(query['limit'], 10), 100);
    const bills = [...state.invoices.values()].filter((i) => i.username === account.username).sort((a, b) => a.id - b.id);
    const list = bills.slice((page - 1) * limit, page * limit).map(billView);
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: listPageData(state, list, bills.length, page, limit) };
  },
};
