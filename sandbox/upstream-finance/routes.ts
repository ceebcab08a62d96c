import { cartAddRoute, cartClearRoute, cartSettleRoute } from './handlers/cart.js';
import { checkOrderRoute, payRoute } from './handlers/billing.js';
import { billListRoute } from './handlers/bills.js';
import { catalogueRoute } from './handlers/catalogue.js';
import { hostActionRoute } from './handlers/host-actions.js';
import { flowPacketBuyRoute, hostRenewRoute, hostUpgradeRoute } from './handlers/host-billing.js';
import { hostHeaderRoute, hostListRoute } from './handlers/hosts.js';
import { loginRoute } from './handlers/login.js';
import { moduleActionRoute, modulePageRoute } from './handlers/module.js';
import { productConfigRoute } from './handlers/product-config.js';
import { creditRoute, userRoute } from './handlers/user.js';
import type { SandboxRoute } from './route-types.js';

/** The route table (paths as in `README.md` of this folder). */
export const UPSTREAM_FINANCE_ROUTES: SandboxRoute[] = [
  loginRoute,
  userRoute,
  creditRoute,
  catalogueRoute,
  productConfigRoute,
  cartClearRoute,
  cartAddRoute,
  cartSettleRoute,
  payRoute,
  checkOrderRoute,
  billListRoute,
  hostHeaderRoute,
  hostListRoute,
  hostRenewRoute,
  hostUpgradeRoute,
  flowPacketBuyRoute,
  hostActionRoute,
  modulePageRoute,
  moduleActionRoute,
];
