import type { ServiceOrderInput, ServiceOrderResult } from '../service-order/contract.js';
import { runServiceOrder } from '../service-order/run-service-order.js';
import { RENEW_STAGE } from './contract.js';

/**
 * `renew:<invoice_no>`: renews the service upstream exactly once (`upstream.host_renew`, the
 * bill recorded, then paid; reconciled by the host's bills after any ambiguous answer) and moves
 * the local due date by the period. Without an upstream binding it only extends locally.
 */
export async function renewServiceWorkflow(input: ServiceOrderInput): Promise<ServiceOrderResult> {
  return runServiceOrder(RENEW_STAGE, input);
}
