import type { OrderBuyingStage } from '../service-order/contract.js';
/**
 * A traffic package bought for one service after its `traffic_package` invoice is paid
 * (`traffic:<invoice_no>`): the upstream sells it once (`upstream.traffic_package_buy`, then
 * `upstream.invoice_pay` of that bill), then the result is recorded. Shared shape, update and
 * query: `../service-order/contract.ts`.
 */
export const TRAFFIC_WORKFLOW_TYPE = 'trafficPackageWorkflow';

/** Its buying stage: the committing request for the traffic package's upstream bill (in recorded histories: never renamed). */
export const TRAFFIC_STAGE = 'upstream_buy' satisfies OrderBuyingStage;

export function trafficWorkflowId(invoiceNo: string): string {
  return `traffic:${invoiceNo}`;
}
