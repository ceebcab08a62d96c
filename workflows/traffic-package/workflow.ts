import type { ServiceOrderInput, ServiceOrderResult } from '../service-order/contract.js';
import { runServiceOrder } from '../service-order/run-service-order.js';
import { TRAFFIC_STAGE } from './contract.js';

/**
 * `traffic:<invoice_no>`: buys the traffic package upstream exactly once
 * (`upstream.traffic_package_buy`, the bill recorded, then paid; reconciled by the host's bills
 * after any ambiguous answer) and records the result.
 */
export async function trafficPackageWorkflow(input: ServiceOrderInput): Promise<ServiceOrderResult> {
  return runServiceOrder(TRAFFIC_STAGE, input);
}
