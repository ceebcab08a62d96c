import { catalogueRoute } from './handlers/catalogue.js';
import { hostHeaderRoute, hostListRoute } from './handlers/hosts.js';
import { loginRoute } from './handlers/login.js';
import { productConfigRoute } from './handlers/product-config.js';
import { creditRoute, userRoute } from './handlers/user.js';
import type { SandboxRoute } from './route-types.js';

/**
 * The route table. The buying endpoints (`/cart/clear`, `/cart/add_to_shop`, `/cart/settle`,
 * `/pay`, `/check_order`, `/host/renew`) of a later issue are added here, with their state in
 * `state.ts` (`purchases` already counts orders per downstream reference).
 */
export const UPSTREAM_FINANCE_ROUTES: SandboxRoute[] = [
  loginRoute,
  userRoute,
  creditRoute,
  catalogueRoute,
  productConfigRoute,
  hostHeaderRoute,
  hostListRoute,
];
