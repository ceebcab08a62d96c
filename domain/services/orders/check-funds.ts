import type { FundsCheck } from '../../../workflows/upstream/contract.js';
import type { DomainDeps } from '../../deps.js';
import { checkUpstreamFunds } from '../../economics/funds.js';
import { loadServiceOrder } from './order-record.js';

/**
 * The funds check before a service order pays its upstream bill (issue #29): the recorded bill
 * amount (`upstream_amount`) against the supplier balance. A bill already paid, or one whose
 * amount the upstream did not answer, needs no check.
 */
export async function checkServiceOrderFunds(deps: DomainDeps, input: { invoiceId: number; workflowId: string; refused: boolean }): Promise<FundsCheck> {
  const order = await loadServiceOrder(deps, input.invoiceId);
  if (order.upstream_paid_at !== null || order.supplier_id === null) return { enough: true, balance: null, amount: null };
  return checkUpstreamFunds(deps, { supplierId: order.supplier_id, amount: order.upstream_amount, refused: input.refused, workflowId: input.workflowId });
}
