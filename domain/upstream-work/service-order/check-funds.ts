import type { FundsCheck } from '../../../workflows/upstream/contract.js';
import type { DomainDeps } from '../../deps.js';
import { checkBeforePaying } from '../checks.js';
import { loadServiceOrder } from './order-record.js';

/**
 * The checks before a service order pays its upstream bill (the kernel's `checkBeforePaying`,
 * ../checks.ts): the recorded bill amount (`upstream_amount`); a bill already paid needs none.
 */
export async function checkServiceOrderFunds(deps: DomainDeps, input: { invoiceId: number; workflowId: string; refused: boolean }): Promise<FundsCheck> {
  const order = await loadServiceOrder(deps, input.invoiceId);
  if (order.upstream_paid_at !== null) return { enough: true, balance: null, amount: null };
  return checkBeforePaying(deps, {
    kind: order.kind,
    serviceId: order.service_id,
    supplierId: order.supplier_id,
    amount: order.upstream_amount,
    refused: input.refused,
    workflowId: input.workflowId,
  });
}
