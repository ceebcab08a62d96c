import type { OrderBuyingStage } from '../service-order/contract.js';
/**
 * A configuration change (upgrade or downgrade) of one service after its `upgrade` invoice is
 * paid (`upgrade:<invoice_no>`): the upstream changes the host once (`upstream.host_upgrade`, the
 * bill recorded, then `upstream.invoice_pay`), then the service's configuration and locked price
 * change and a downgrade's credit goes to the balance. Services without an upstream binding
 * change only locally. Shared shape, update and query: `../service-order/contract.ts`.
 */
export const UPGRADE_WORKFLOW_TYPE = 'upgradeServiceWorkflow';

/** Its buying stage: the committing request for the configuration change's upstream bill (in recorded histories: never renamed). */
export const UPGRADE_STAGE = 'upstream_upgrade' satisfies OrderBuyingStage;

export function upgradeWorkflowId(invoiceNo: string): string {
  return `upgrade:${invoiceNo}`;
}
