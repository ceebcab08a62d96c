import type { ServiceOrderInput, ServiceOrderResult } from '../service-order/contract.js';
import { runServiceOrder } from '../service-order/run-service-order.js';
import { UPGRADE_STAGE } from './contract.js';

/**
 * `upgrade:<invoice_no>`: changes the service's configuration upstream exactly once
 * (`upstream.host_upgrade`, the bill recorded, then paid; reconciled by the host's bills after any
 * ambiguous answer), then locally: configuration, locked price, and a downgrade's credit.
 */
export async function upgradeServiceWorkflow(input: ServiceOrderInput): Promise<ServiceOrderResult> {
  return runServiceOrder(UPGRADE_STAGE, input);
}
