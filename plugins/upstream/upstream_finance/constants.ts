/** The provider this plugin serves; kept distinct, never normalised to `hosting_panel_api`. */
export const FINANCE_PROVIDER_KEY = 'upstream_finance_api';

export const FINANCE_LOGIN_PATH = '/finance_api_login';

/** Page size of host-list paging (`limit`; the upstream ignores `pageSize`). */
export const HOST_LIST_PAGE_SIZE = 100;

/** Stop paging beyond this many pages rather than loop on a misbehaving upstream. */
export const HOST_LIST_MAX_PAGES = 200;

/** Page size of bill-list paging (`GET /billing/list?page=N&limit=100`). */
export const BILL_LIST_PAGE_SIZE = 100;

/** Stop paging beyond this many pages rather than loop on a misbehaving upstream. */
export const BILL_LIST_MAX_PAGES = 200;
