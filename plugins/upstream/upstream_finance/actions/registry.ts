import type { FinanceAction } from './action-types.js';
import { readCatalogue } from './catalogue.js';
import { readCredit } from './credit.js';
import { healthCheck } from './health-check.js';
import { readHostCredentials } from './host-credentials.js';
import { readHostDetail } from './host-detail.js';
import { readHostList } from './host-list.js';
import { loginCheck } from './login-check.js';
import { readProductConfig } from './product-config.js';
import { readUser } from './user.js';

export const FINANCE_ACTIONS: Record<string, FinanceAction> = {
  'upstream.login_check': loginCheck,
  'upstream.user': readUser,
  'upstream.credit': readCredit,
  'upstream.catalogue': readCatalogue,
  'upstream.product_config': readProductConfig,
  'upstream.host_detail': readHostDetail,
  'upstream.host_credentials': readHostCredentials,
  'upstream.host_list': readHostList,
  health_check: healthCheck,
};
