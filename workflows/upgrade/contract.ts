/**
 * A configuration change (upgrade or downgrade) of one service after its `upgrade` invoice is
 * paid (`upgrade:<invoice_no>`): the upstream changes the host once (`upstream.host_upgrade`, the
 * bill recorded, then `upstream.invoice_pay`), then the service's configuration and locked price
 * change and a downgrade's credit goes to the balance. Services without an upstream binding
 * change only locally. Shared shape, update and query: `../service-order/contract.ts`.
 */
export const UPGRADE_WORKFLOW_TYPE = 'upgradeServiceWorkflow';

export function upgradeWorkflowId(invoiceNo: string): string {
  return `upgrade:${invoiceNo}`;
}
