import type { OrderBuyingStage } from '../service-order/contract.js';
/**
 * Renewal of one service after its `renew` invoice is paid (`renew:<invoice_no>`): the upstream
 * renews once (`upstream.host_renew`, then `upstream.invoice_pay` of that bill), then the local
 * due date moves by the period. Services without an upstream binding only extend locally.
 * Shared shape, update and query: `../service-order/contract.ts`.
 */
export const RENEW_WORKFLOW_TYPE = 'renewServiceWorkflow';

/** Its buying stage: the committing request for the renewal's upstream bill (in recorded histories: never renamed). */
export const RENEW_STAGE = 'upstream_renew' satisfies OrderBuyingStage;

export function renewWorkflowId(invoiceNo: string): string {
  return `renew:${invoiceNo}`;
}
