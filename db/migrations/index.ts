import { migration0001Foundation } from './0001-foundation.js';
import { migration0002Plugins } from './0002-plugins.js';
import { migration0003Catalogue } from './0003-catalogue.js';
import { migration0004Money } from './0004-money.js';
import { migration0005TaskRuns } from './0005-task-runs.js';
import { migration0006CatalogueAdmin } from './0006-catalogue-admin.js';
import { migration0007Suppliers } from './0007-suppliers.js';
import { migration0008Provisioning } from './0008-provisioning.js';
import { migration0009ServiceOrders } from './0009-service-orders.js';
import { migration0010Lifecycle } from './0010-lifecycle.js';
import { migration0011IdempotencyKeys } from './0011-idempotency-keys.js';
import { migration0012LoginThrottle } from './0012-login-throttle.js';
import { migration0013Outbox } from './0013-outbox.js';
import { migration0014VncSessions } from './0014-vnc-sessions.js';
import { migration0015Settings } from './0015-settings.js';
import { migration0016ConsoleNetwork } from './0016-console-network.js';
import { migration0017ServiceUpgrades } from './0017-service-upgrades.js';
import { migration0018Identity } from './0018-identity.js';
import { migration0019Support } from './0019-support.js';
import { migration0020Marketing } from './0020-marketing.js';
import { migration0021Operations } from './0021-operations.js';
import { migration0022ActorTypes } from './0022-actor-types.js';
import { migration0023AuditChain } from './0023-audit-chain.js';
import { migration0024TwoFactor } from './0024-two-factor.js';
import { migration0025PersonalAccessTokens } from './0025-personal-access-tokens.js';
import { migration0026ServiceOrdersName } from './0026-service-orders-name.js';
import { migration0027PaymentSignalIntent } from './0027-payment-signal-intent.js';
import { migration0028UpstreamPriceDrift } from './0028-upstream-price-drift.js';
import { migration0029UpstreamCosts } from './0029-upstream-costs.js';
import { migration0030SupplierFunds } from './0030-supplier-funds.js';
import { migration0031Reconciliation } from './0031-reconciliation.js';
import { migration0032AdminAlerts } from './0032-admin-alerts.js';
import { migration0033ListIndexes } from './0033-list-indexes.js';
import { migration0034LogPartitions } from './0034-log-partitions.js';
import { migration0035TaskIndexes } from './0035-task-indexes.js';
import { migration0036FundsAlertsInAdminAlerts } from './0036-funds-alerts-in-admin-alerts.js';
import { migration0037DatabaseBackups } from './0037-database-backups.js';
import { migration0038AwaitingFundsIndex } from './0038-awaiting-funds-index.js';
import { migration0040ReadIndexes } from './0040-read-indexes.js';
import { migration0041DueKeyIndex } from './0041-due-key-index.js';
import { migration0042StoredMargins } from './0042-stored-margins.js';
import { migration0043TaskWatermarks } from './0043-task-watermarks.js';
import { migration0044KeptDashboardFigures } from './0044-kept-dashboard-figures.js';
import { migration0045SupplierHealth } from './0045-supplier-health.js';
import { migration0046ProductUpstreamAlternates } from './0046-product-upstream-alternates.js';
import { migration0047MarginTriggersPlannedPerStatement } from './0047-margin-triggers-planned-per-statement.js';
import { migration0048ServiceUpstreamAttempts } from './0048-service-upstream-attempts.js';
import { migration0049EconomicsPerBinding } from './0049-economics-per-binding.js';
import { migration0050OwnerTypeAndCouponSearchIndexes } from './0050-owner-type-and-coupon-search-indexes.js';
import { migration0051KeptTicketStatuses } from './0051-kept-ticket-statuses.js';
import type { Migration } from './types.js';

/** Every migration, in order. Listed explicitly so source (tsx) and build (dist) run the same set. */
export const migrations: Migration[] = [
  migration0001Foundation,
  migration0002Plugins,
  migration0003Catalogue,
  migration0004Money,
  migration0005TaskRuns,
  migration0006CatalogueAdmin,
  migration0007Suppliers,
  migration0008Provisioning,
  migration0009ServiceOrders,
  migration0010Lifecycle,
  migration0011IdempotencyKeys,
  migration0012LoginThrottle,
  migration0013Outbox,
  migration0014VncSessions,
  migration0015Settings,
  migration0016ConsoleNetwork,
  migration0017ServiceUpgrades,
  migration0018Identity,
  migration0019Support,
  migration0020Marketing,
  migration0021Operations,
  migration0022ActorTypes,
  migration0023AuditChain,
  migration0024TwoFactor,
  migration0025PersonalAccessTokens,
  migration0026ServiceOrdersName,
  migration0027PaymentSignalIntent,
  migration0028UpstreamPriceDrift,
  migration0029UpstreamCosts,
  migration0030SupplierFunds,
  migration0031Reconciliation,
  migration0032AdminAlerts,
  migration0033ListIndexes,
  migration0034LogPartitions,
  migration0035TaskIndexes,
  migration0036FundsAlertsInAdminAlerts,
  migration0037DatabaseBackups,
  migration0038AwaitingFundsIndex,
  migration0040ReadIndexes,
  migration0041DueKeyIndex,
  migration0042StoredMargins,
  migration0043TaskWatermarks,
  migration0044KeptDashboardFigures,
  migration0045SupplierHealth,
  migration0046ProductUpstreamAlternates,
  migration0047MarginTriggersPlannedPerStatement,
  migration0048ServiceUpstreamAttempts,
  migration0049EconomicsPerBinding,
  migration0050OwnerTypeAndCouponSearchIndexes,
  migration0051KeptTicketStatuses,
];
