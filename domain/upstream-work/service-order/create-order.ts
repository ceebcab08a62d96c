import type { ServiceOrderKind } from '../../../db/models/service-order.js';
import { sqlRows, statement } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';
import { FulfilmentImpossibleError } from '../fulfilment-error.js';
import { UPSTREAM_WORK_KINDS } from '../kinds.js';
import { NO_ORDER_COLUMNS } from './order-kind.js';

const INSERT_ORDER = statement(
  `INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, package_id, package_name, size_gb, amount, workflow_id,
      upgrade_config, upgrade_price, upgrade_credit)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, COALESCE($14::numeric, 0))
   ON CONFLICT (invoice_id) DO NOTHING RETURNING id`,
);

/**
 * The `service_orders` row of a paid `renew`, `traffic_package` or `upgrade` invoice (UNIQUE per
 * invoice: a repeated dispatch adds nothing), its kind's columns read by the kind's own folder
 * (`columns` of its row of `UPSTREAM_WORK_KINDS`). A second open order of the same kind for the
 * service is refused by the database (one at a time); the dispatch then fails visibly and its
 * outbox row (and the hourly redispatch) repeats it once the first is done. An invoice that names
 * no service, period, package or configuration cannot be fulfilled: FulfilmentImpossibleError.
 * Answers the service it is for (the workflow is the caller's to start).
 */
export async function createServiceOrder(deps: DomainDeps, invoice: InvoiceRecord): Promise<{ serviceId: number }> {
  const kind = UPSTREAM_WORK_KINDS[invoice.type as ServiceOrderKind];
  if (invoice.service_id === null) throw new FulfilmentImpossibleError(`${invoice.type} invoice ${invoice.invoice_no} names no service`);
  const c = { ...NO_ORDER_COLUMNS, ...kind.order.columns(invoice) };
  await sqlRows(deps, INSERT_ORDER, [
    invoice.id,
    invoice.service_id,
    invoice.user_id,
    invoice.type,
    c.billing_period,
    c.months,
    c.package_id,
    c.package_name,
    c.size_gb,
    invoice.amount,
    kind.workflow.id({ serviceId: invoice.service_id, invoiceNo: invoice.invoice_no }),
    c.upgrade_config ? JSON.stringify(c.upgrade_config) : null,
    c.upgrade_price,
    c.upgrade_credit,
  ]);
  return { serviceId: invoice.service_id };
}
