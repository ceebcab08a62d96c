import type { InvoiceRecord } from '../../../db/models/billing.js';
import { MONEY_PATTERN } from '../../../lib/money.js';
import { upstreamUpgradeConfig } from '../../services/upgrades/upstream-config.js';
import { FulfilmentImpossibleError } from '../fulfilment-error.js';
import type { ServiceOrderKindParts } from '../service-order/order-kind.js';
import { UPGRADE_STAGE } from '../../../workflows/upgrade/contract.js';

/** An upgrade invoice's change: the target configuration, its price and a downgrade's credit (null: not an upgrade invoice one can fulfil). */
function upgradeChange(invoice: InvoiceRecord): { config: Record<string, unknown>; price: string; credit: string } | null {
  const p = invoice.payload;
  const config = p['upgrade_config'];
  const proration = p['proration'] as Record<string, unknown> | undefined;
  const price = proration?.['new_price'];
  const credit = p['credit_to_balance'];
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return null;
  if (typeof price !== 'string' || !MONEY_PATTERN.test(price) || typeof credit !== 'string' || !MONEY_PATTERN.test(credit)) return null;
  return { config: config as Record<string, unknown>, price, credit };
}

/**
 * A configuration change (`upgrade:<invoice_no>`): the order carries the target configuration,
 * its price and a downgrade's credit; the upstream changes the host to it (`upstream.host_upgrade`,
 * the configuration as the upstream's option values).
 */
export const UPGRADE: ServiceOrderKindParts = {
  columns: (invoice) => {
    const change = upgradeChange(invoice);
    if (!change) throw new FulfilmentImpossibleError(`upgrade invoice ${invoice.invoice_no} names no configuration`);
    return { upgrade_config: change.config, upgrade_price: change.price, upgrade_credit: change.credit };
  },
  request: async (deps, order, hostId) => ({ action: 'upstream.host_upgrade', payload: { host_id: hostId, config: await upstreamUpgradeConfig(deps, order) } }),
  billKind: 'upgrade',
  stage: { name: UPGRADE_STAGE, message: '向上游申请配置变更账单' },
};
