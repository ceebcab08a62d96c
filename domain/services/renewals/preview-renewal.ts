import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { findOpenServiceOrder, findUnpaidServiceInvoice } from '../../upstream-work/service-order/open-orders.js';
import { SERVICE_STATUS_LABELS } from '../service-labels.js';
import { type RenewalOption, renewalOptions } from './renewal-options.js';
import { RENEWABLE_STATUSES } from './renewal-rules.js';

export type RenewalPreview = {
  service_id: number;
  renewable: boolean;
  /** Why not, in Chinese; null when renewable. */
  reason: string | null;
  billing_period: string;
  next_due_at: Date | null;
  options: RenewalOption[];
  unpaid_invoice: { id: number; invoice_no: string; billing_period: string; amount: string } | null;
  in_progress_invoice_id: number | null;
};

/** What the renewal page shows: the periods and prices (`renewalOptions`), or why the service cannot renew now. */
export async function previewRenewal(deps: DomainDeps, input: { serviceId: number; userId: number }): Promise<RenewalPreview> {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  let reason: string | null = null;
  if (service.billing_period === 'onetime') reason = '一次性付费的服务无需续费';
  else if (!RENEWABLE_STATUSES.includes(service.status)) reason = `服务${SERVICE_STATUS_LABELS[service.status]}，不可续费`;
  const [options, unpaid, open] = await Promise.all([
    reason ? Promise.resolve([]) : renewalOptions(deps, service),
    findUnpaidServiceInvoice(deps, service.id, 'renew'),
    findOpenServiceOrder(deps, service.id, 'renew'),
  ]);
  return {
    service_id: service.id,
    renewable: reason === null,
    reason,
    billing_period: service.billing_period,
    next_due_at: service.next_due_at,
    options,
    unpaid_invoice: unpaid ? { id: unpaid.id, invoice_no: unpaid.invoice_no, billing_period: String(unpaid.payload['billing_period'] ?? ''), amount: unpaid.amount } : null,
    in_progress_invoice_id: open?.id ?? null,
  };
}
