import type { ServiceOrderRow } from '../../../db/models/service-order.js';
import { sqlOne } from '../../../db/sql.js';
import { parseConfigOptions } from '../../catalogue/config-options.js';
import type { DomainDeps } from '../../deps.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';

/**
 * The target configuration of an upgrade order as the upstream's `configoption` values (option
 * `parameter` → sub-option id or quantity), the way provisioning sends a purchase's. Options
 * without an upstream parameter are local and not sent. Nothing to send is a permanent failure.
 */
export async function upstreamUpgradeConfig(deps: DomainDeps, order: Pick<ServiceOrderRow, 'service_id' | 'upgrade_config'>): Promise<Record<string, number>> {
  const product = await sqlOne<{ config_options: unknown }>(
    deps,
    `SELECT p.config_options FROM services s JOIN products p ON p.id = s.product_id WHERE s.id = $1`,
    [order.service_id],
  );
  const options = product ? parseConfigOptions(product.config_options) : [];
  const out: Record<string, number> = {};
  for (const option of options) {
    const chosen = order.upgrade_config?.[option.field];
    if (option.parameter && chosen && typeof chosen.value === 'number') out[option.parameter] = chosen.value;
  }
  if (Object.keys(out).length === 0) throw new UpstreamStepError('permanent', 'no_upstream_options', '商品配置项没有对应的上游参数，无法向上游提交配置变更');
  return out;
}
