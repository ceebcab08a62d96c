import { FulfilmentImpossibleError } from '../fulfilment-error.js';
import { positiveInt, type ServiceOrderKindParts } from '../service-order/order-kind.js';
import { TRAFFIC_STAGE } from '../../../workflows/traffic-package/contract.js';

/**
 * A traffic package (`traffic:<invoice_no>`): the order carries the package the invoice names
 * (id, name, size); the upstream sells it for the host (`upstream.traffic_package_buy`).
 */
export const TRAFFIC_PACKAGE: ServiceOrderKindParts = {
  columns: (invoice) => {
    const p = invoice.payload;
    const packageId = positiveInt(p['package_id']);
    if (!packageId) throw new FulfilmentImpossibleError(`traffic package invoice ${invoice.invoice_no} names no package`);
    return { package_id: packageId, package_name: String(p['package_name'] ?? '').slice(0, 128), size_gb: positiveInt(p['size_gb']) };
  },
  request: async (_deps, order, hostId) => ({ action: 'upstream.traffic_package_buy', payload: { host_id: hostId, package_id: order.package_id } }),
  billKind: 'traffic_package',
  stage: { name: TRAFFIC_STAGE, message: '向上游申请流量包账单' },
};
