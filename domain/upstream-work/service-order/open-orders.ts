import type { ServiceOrderKind } from '../../../db/models/service-order.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/billing.js';

/** The service's unpaid renewal (or traffic package) invoice; at most one exists (migration 0009). */
export async function findUnpaidServiceInvoice(deps: DomainDeps, serviceId: number, kind: ServiceOrderKind, tx?: Tx): Promise<InvoiceRecord | null> {
  return sqlOne<InvoiceRecord>(
    deps,
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE service_id = $1 AND type = $2 AND status = 'unpaid' ORDER BY id DESC LIMIT 1`,
    [serviceId, kind],
    tx,
  );
}

/**
 * A paid renewal (or traffic package) of the service still being fulfilled: its invoice is paid
 * and its order not yet succeeded or cancelled (or not even dispatched). Only one runs at a time.
 * Read from what is open (the open order by `service_orders_one_open`, the paid invoice not yet
 * dispatched by `invoices_undispatched_service_idx`), never the service's history of paid
 * invoices: an order is made before its invoice is marked dispatched (`dispatchFulfilment`).
 */
export async function findOpenServiceOrder(deps: DomainDeps, serviceId: number, kind: ServiceOrderKind, tx?: Tx): Promise<InvoiceRecord | null> {
  return sqlOne<InvoiceRecord>(
    deps,
    `SELECT ${INVOICE_COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1i.$2')} FROM invoices i
      WHERE i.id IN (
              SELECT o.invoice_id FROM service_orders o WHERE o.service_id = $1 AND o.kind = $2 AND o.status IN ('pending', 'processing', 'awaiting_admin')
              UNION ALL
              SELECT u.id FROM invoices u
               WHERE u.service_id = $1 AND u.service_id IS NOT NULL AND u.dispatched_at IS NULL AND u.paid_at IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM service_orders o WHERE o.invoice_id = u.id))
        AND i.service_id = $1 AND i.type = $2 AND i.paid_at IS NOT NULL AND i.status IN ('paid', 'partially_refunded')
      ORDER BY i.id DESC LIMIT 1`,
    [serviceId, kind],
    tx,
  );
}
