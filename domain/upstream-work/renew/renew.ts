import { billingPeriodMonths, isBillingPeriod } from '../../catalogue/billing-periods.js';
import { FulfilmentImpossibleError } from '../fulfilment-error.js';
import { positiveInt, type ServiceOrderKindParts } from '../service-order/order-kind.js';
import { RENEW_STAGE } from '../../../workflows/renewal/contract.js';

/**
 * A renewal (`renew:<invoice_no>`): the order carries the invoice's billing period and months
 * (the months of the period when the invoice names none); the upstream renews the host for that
 * period (`upstream.host_renew`).
 */
export const RENEW: ServiceOrderKindParts = {
  columns: (invoice) => {
    const p = invoice.payload;
    const period = isBillingPeriod(p['billing_period']) ? p['billing_period'] : null;
    const months = positiveInt(p['months']) ?? (period ? billingPeriodMonths(period) : null);
    if (!period || !months) throw new FulfilmentImpossibleError(`renew invoice ${invoice.invoice_no} has no renewable period`);
    return { billing_period: period, months };
  },
  request: async (_deps, order, hostId) => ({ action: 'upstream.host_renew', payload: { host_id: hostId, billing_period: order.billing_period } }),
  billKind: 'renewal',
  stage: { name: RENEW_STAGE, message: '向上游申请续费账单' },
};
