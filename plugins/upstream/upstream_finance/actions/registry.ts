import type { FinanceAction } from './action-types.js';
import { readBillList } from './bill-list.js';
import { readCatalogue } from './catalogue.js';
import { checkOrder } from './check-order.js';
import { readConsoleTicket } from './console-ticket.js';
import { readCredit } from './credit.js';
import { healthCheck } from './health-check.js';
import { runHostAction } from './host-action.js';
import { readHostCredentials } from './host-credentials.js';
import { readHostDetail } from './host-detail.js';
import { readHostList } from './host-list.js';
import { readHostMonitoring } from './host-monitoring.js';
import { renewHost } from './host-renew.js';
import { upgradeHost } from './host-upgrade.js';
import { payInvoice } from './invoice-pay.js';
import { loginCheck } from './login-check.js';
import { runModuleAction } from './module-action.js';
import { readModulePage } from './module-page.js';
import { readProductConfig } from './product-config.js';
import { preparePurchaseCart } from './purchase-cart.js';
import { checkoutPurchase } from './purchase-checkout.js';
import { probePurchase } from './purchase-probe.js';
import { buyTrafficPackage } from './traffic-package-buy.js';
import { readTrafficPackages } from './traffic-packages.js';
import { readUser } from './user.js';

/** Every action of the plugin; the contract of each is in README.md beside this folder. */
export const FINANCE_ACTIONS: Record<string, FinanceAction> = {
  'upstream.login_check': loginCheck,
  'upstream.user': readUser,
  'upstream.credit': readCredit,
  'upstream.catalogue': readCatalogue,
  'upstream.product_config': readProductConfig,
  'upstream.purchase_probe': probePurchase,
  'upstream.purchase_cart': preparePurchaseCart,
  'upstream.purchase_checkout': checkoutPurchase,
  'upstream.invoice_pay': payInvoice,
  'upstream.check_order': checkOrder,
  'upstream.host_detail': readHostDetail,
  'upstream.host_credentials': readHostCredentials,
  'upstream.host_list': readHostList,
  'upstream.bill_list': readBillList,
  'upstream.host_renew': renewHost,
  'upstream.host_upgrade': upgradeHost,
  'upstream.traffic_packages': readTrafficPackages,
  'upstream.traffic_package_buy': buyTrafficPackage,
  'upstream.host_action': runHostAction,
  'upstream.console_ticket': readConsoleTicket,
  'upstream.module_action': runModuleAction,
  'upstream.module_page': readModulePage,
  'upstream.host_monitoring': readHostMonitoring,
  health_check: healthCheck,
};

/** Actions that buy, pay or renew: an unexpected failure inside them leaves the outcome unknown. */
export const COMMITTING_ACTIONS: ReadonlySet<string> = new Set([
  'upstream.purchase_checkout',
  'upstream.invoice_pay',
  'upstream.host_renew',
  'upstream.host_upgrade',
  'upstream.traffic_package_buy',
]);
