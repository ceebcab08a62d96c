import { AppError, ErrorCode, notFound } from '../../../lib/errors.js';
import type { Audit } from '../../billing/audit.js';
import { insertInvoice } from '../../billing/invoices/insert-invoice.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { findOpenServiceOrder, findUnpaidServiceInvoice } from '../../upstream-work/service-order/open-orders.js';
import { quoteTrafficPackage } from './traffic-packages.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';

/**
 * A `traffic_package` invoice for one package of the service's host, at the quoted price (paid
 * through `pay/*`; once paid, `traffic:<invoice_no>` buys it upstream exactly once). One at a
 * time per service: an unpaid one for the same package is answered again (`created: false`),
 * for another package 40946 (pay or cancel it first); a paid one still being bought 40941.
 */
export async function createTrafficPackageInvoice(
  deps: DomainDeps,
  input: { serviceId: number; userId: number; packageId: number },
  audit: Audit,
): Promise<{ invoice: InvoiceRecord; created: boolean }> {
  const { service, offer } = await quoteTrafficPackage(deps, input);
  return inTransaction(deps, async (tx) => {
    const locked = await sqlOne<{ id: number }>(deps, 'SELECT id FROM services WHERE id = $1 AND user_id = $2 FOR UPDATE', [service.id, input.userId], tx);
    if (!locked) throw notFound('服务不存在');
    const unpaid = await findUnpaidServiceInvoice(deps, service.id, 'traffic_package', tx);
    if (unpaid) {
      if (Number(unpaid.payload['package_id']) === offer.package_id) return { invoice: unpaid, created: false };
      throw new AppError(ErrorCode.TRAFFIC_INVOICE_EXISTS, `该服务已有未支付的流量包账单（${String(unpaid.payload['package_name'] ?? '')}），请先支付或取消`, {
        invoice_id: unpaid.id,
        invoice_no: unpaid.invoice_no,
      });
    }
    const open = await findOpenServiceOrder(deps, service.id, 'traffic_package', tx);
    if (open) throw new AppError(ErrorCode.SERVICE_ORDER_IN_PROGRESS, '该服务的上一个流量包仍在购买中，请稍后再试', { invoice_id: open.id, invoice_no: open.invoice_no });
    const name = service.product_name || '服务';
    const { invoice } = await insertInvoice(
      deps,
      {
        userId: input.userId,
        type: 'traffic_package',
        status: 'unpaid',
        subject: `${name} ${offer.name}`,
        amount: offer.price,
        serviceId: service.id,
        payload: {
          service_id: service.id,
          package_id: offer.package_id,
          package_name: offer.name,
          size_gb: offer.size_gb,
          upstream_price: offer.upstream_price,
        },
        items: [{ key: 'traffic_package', description: `${offer.name}（${offer.size_gb}GB）`, unitAmount: offer.price, quantity: 1, amount: offer.price }],
        order: { productId: service.product_id, serviceId: service.id, billingPeriod: '', quantity: 1, config: { package_id: offer.package_id } },
        audit,
      },
      tx,
    );
    return { invoice, created: true };
  });
}
