import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ServiceOrderKind } from '../../../db/models/service-order.js';
import { BACKGROUND_DEADLINE_MS } from '../../../lib/temporal.js';
import { FulfilmentImpossibleError } from '../../billing/fulfilment/fulfilment-error.js';
import { sqlRows } from '../../../db/sql.js';
import { billingPeriodMonths, isBillingPeriod } from '../../catalogue/billing-periods.js';
import type { DomainDeps } from '../../deps.js';
import { RENEW_WORKFLOW_TYPE, renewWorkflowId } from '../../../workflows/renewal/contract.js';
import type { ServiceOrderInput } from '../../../workflows/service-order/contract.js';
import { TRAFFIC_WORKFLOW_TYPE, trafficWorkflowId } from '../../../workflows/traffic-package/contract.js';
import { UPGRADE_WORKFLOW_TYPE, upgradeWorkflowId } from '../../../workflows/upgrade/contract.js';
import { MONEY_PATTERN } from '../../../lib/money.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';

export function serviceOrderWorkflow(kind: ServiceOrderKind, invoiceNo: string): { type: string; id: string } {
  if (kind === 'upgrade') return { type: UPGRADE_WORKFLOW_TYPE, id: upgradeWorkflowId(invoiceNo) };
  return kind === 'renew'
    ? { type: RENEW_WORKFLOW_TYPE, id: renewWorkflowId(invoiceNo) }
    : { type: TRAFFIC_WORKFLOW_TYPE, id: trafficWorkflowId(invoiceNo) };
}

/** An upgrade invoice's change: the target configuration, its price and a downgrade's credit (null: not an upgrade invoice one can fulfil). */
function upgradeChange(invoice: InvoiceRecord): { config: Record<string, unknown>; price: string; credit: string } | null {
  const p = invoice.payload;
  const config = p['upgrade_config'];
  const proration = p['proration'] as Record<string, unknown> | undefined;
  const price = proration?.['new_price'];
  const credit = p['credit_to_balance'];
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return null;
  if (typeof price !== 'string' || !MONEY_PATTERN.test(price) || typeof credit !== 'string' || !MONEY_PATTERN.test(credit)) return null;
  return { config: config as Record<string, unknown>, price, credit };
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Fulfilment of a paid `renew`, `traffic_package` or `upgrade` invoice (called by the money domain's
 * `dispatchFulfilment`): its `service_orders` row (UNIQUE per invoice: a repeated dispatch
 * adds nothing), then its workflow, started once (a running one is reused, a finished one never
 * started again). A second open order of the same kind for the service is refused by the
 * database (one at a time); the dispatch then fails visibly and its outbox row (and the hourly
 * redispatch) repeats it once the first is done. An invoice that names no service, period or
 * package cannot be fulfilled: FulfilmentImpossibleError.
 */
export async function dispatchServiceOrder(deps: DomainDeps, invoice: InvoiceRecord): Promise<void> {
  const kind = invoice.type as ServiceOrderKind;
  if (invoice.service_id === null) throw new FulfilmentImpossibleError(`${invoice.type} invoice ${invoice.invoice_no} names no service`);
  const p = invoice.payload;
  const workflow = serviceOrderWorkflow(kind, invoice.invoice_no);
  const period = kind === 'renew' && isBillingPeriod(p['billing_period']) ? p['billing_period'] : null;
  const months = kind === 'renew' ? (positiveInt(p['months']) ?? (period ? billingPeriodMonths(period) : null)) : null;
  if (kind === 'renew' && (!period || !months)) throw new FulfilmentImpossibleError(`renew invoice ${invoice.invoice_no} has no renewable period`);
  const packageId = kind === 'traffic_package' ? positiveInt(p['package_id']) : null;
  if (kind === 'traffic_package' && !packageId) throw new FulfilmentImpossibleError(`traffic package invoice ${invoice.invoice_no} names no package`);
  const change = kind === 'upgrade' ? upgradeChange(invoice) : null;
  if (kind === 'upgrade' && !change) throw new FulfilmentImpossibleError(`upgrade invoice ${invoice.invoice_no} names no configuration`);
  await sqlRows(
    deps,
    `INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, package_id, package_name, size_gb, amount, workflow_id,
        upgrade_config, upgrade_price, upgrade_credit)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, COALESCE($14::numeric, 0))
     ON CONFLICT (invoice_id) DO NOTHING RETURNING id`,
    [
      invoice.id,
      invoice.service_id,
      invoice.user_id,
      kind,
      period,
      months,
      packageId,
      String(p['package_name'] ?? '').slice(0, 128),
      positiveInt(p['size_gb']),
      invoice.amount,
      workflow.id,
      change ? JSON.stringify(change.config) : null,
      change?.price ?? null,
      change?.credit ?? null,
    ],
  );
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the service order workflow');
  const input: ServiceOrderInput = { invoiceId: invoice.id, invoiceNo: invoice.invoice_no };
  const serviceId = invoice.service_id;
  try {
    await deps.temporal.withDeadline(
      (client) =>
        client.workflow.start(workflow.type, {
          workflowId: workflow.id,
          taskQueue: deps.config.temporal.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: SearchAttr.ServiceId, value: serviceId },
            { key: SearchAttr.UserId, value: invoice.user_id },
            { key: SearchAttr.InvoiceNo, value: invoice.invoice_no },
            { key: SearchAttr.BusinessStage, value: 'queued' },
          ],
        }),
      BACKGROUND_DEADLINE_MS,
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}
