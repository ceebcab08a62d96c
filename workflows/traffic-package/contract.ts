/**
 * A traffic package bought for one service after its `traffic_package` invoice is paid
 * (`traffic:<invoice_no>`): the upstream sells it once (`upstream.traffic_package_buy`, then
 * `upstream.invoice_pay` of that bill), then the result is recorded. Shared shape, update and
 * query: `../service-order/contract.ts`.
 */
export const TRAFFIC_WORKFLOW_TYPE = 'trafficPackageWorkflow';

export function trafficWorkflowId(invoiceNo: string): string {
  return `traffic:${invoiceNo}`;
}
