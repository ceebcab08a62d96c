import { sqlOne, statement } from '../../db/sql.js';
import { formatMoney } from '../../lib/money.js';
import type { FundsCheck } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';
import { checkUpstreamFunds } from '../economics/funds.js';
import { costAbovePrice, holdBelowCostOn } from '../economics/hold.js';
import { UpstreamStepError } from '../suppliers/supplier-call.js';
import { UPSTREAM_WORK_KINDS, type UpstreamWorkKind } from './kinds.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';

/**
 * The checks before an upstream bill is paid, once for every kind of upstream work: the pay
 * step's funds activity of each workflow calls `checkBeforePaying` (through `payUpstream`,
 * workflows/upstream/upstream-work.ts). A new check is one function here, called from
 * `checkBeforePaying` in the order it must run (docs/CONVENTIONS.md "Upstream work").
 */

/** A provisioning's price, and whether an admin retried it (an admin retry buys at the cost found). */
const PRICE_AND_RETRY = statement(
  `SELECT s.price::text AS price, EXISTS (SELECT 1 FROM service_events e
      WHERE e.service_id = s.id AND e.kind = 'provision' AND e.stage = 'retry' AND e.operator_type = 'admin') AS retried
     FROM services s WHERE s.id = $1`,
);

/**
 * The hold checked again at the upstream purchase (issue #29 §2: an invoice paid while its
 * product is held stayed payable): with `economics.hold_below_cost` on, work of a kind the hold
 * stops (`holdBelowCost`: provisioning) whose upstream bill is higher than the service's price
 * stops before paying upstream and waits for an admin with the figures (a permanent step
 * failure: `awaiting_admin`). The admin decides once: a retry buys at this cost (a recorded admin
 * retry of the service's provisioning lets it pass), a cancel refunds.
 */
export async function assertPurchaseAboveCost(deps: DomainDeps, input: { serviceId: number; upstreamAmount: string | null }): Promise<void> {
  if (input.upstreamAmount === null) return;
  if (!(await holdBelowCostOn(deps))) return;
  const row = await sqlOne<{ price: string; retried: boolean }>(deps, PRICE_AND_RETRY, [input.serviceId]);
  if (!row || row.retried || !costAbovePrice(input.upstreamAmount, row.price)) return;
  throw new UpstreamStepError(
    'permanent',
    'below_upstream_cost',
    `上游账单 ${formatMoney(input.upstreamAmount)} 元高于本服务售价 ${formatMoney(row.price)} 元（已开启低于成本暂停销售），尚未向上游付款：管理员重试即按此成本购买，取消即退款`,
  );
}

/**
 * Before paying a bill of `amount` (null: not known, or nothing left to pay) to a supplier: the
 * hold below cost (kinds it stops; not when the upstream has just refused the payment for funds,
 * it was passed before that payment), then the supplier's funds (`checkUpstreamFunds`,
 * domain/economics/funds.ts: short means the work waits in `awaiting_upstream_funds`). Work
 * without a supplier has nothing to check.
 */
export async function checkBeforePaying(
  deps: DomainDeps,
  input: { kind: UpstreamWorkKind; serviceId: number; supplierId: number | null; amount: string | null; refused: boolean; workflowId: string },
): Promise<FundsCheck> {
  if (!input.refused && UPSTREAM_WORK_KINDS[input.kind].holdBelowCost) await assertPurchaseAboveCost(deps, { serviceId: input.serviceId, upstreamAmount: input.amount });
  if (input.supplierId === null) return { enough: true, balance: null, amount: null };
  const funds = await checkUpstreamFunds(deps, { supplierId: input.supplierId, amount: input.amount, refused: input.refused, workflowId: input.workflowId });
  if (funds.enough || input.refused || !UPSTREAM_WORK_KINDS[input.kind].failsOver) return funds;
  const seconds = await fundsFailoverSeconds(deps, input.serviceId);
  return seconds === null ? funds : { ...funds, failoverAfterSeconds: seconds };
}

/**
 * How long work short of funds waits before it fails over (issue #38): `economics.funds_failover_minutes`
 * when the service's product has a binding on another supplier the service has not failed at; null
 * (wait for the top-up) otherwise, or when the setting is 0. Not after a payment the upstream refused
 * for funds: a payment was sent, so the work stays (./provision/failover.ts).
 */
async function fundsFailoverSeconds(deps: DomainDeps, serviceId: number): Promise<number | null> {
  const minutes = (await readSettings(deps, economicsSettings)).funds_failover_minutes;
  if (minutes <= 0) return null;
  const row = await sqlOne<{ other: boolean }>(deps, OTHER_BINDING_LEFT, [serviceId]);
  return row?.other ? minutes * 60 : null;
}

/** Whether the service's product has a binding on a supplier other than the service's, not failed at before. */
const OTHER_BINDING_LEFT = statement(
  `SELECT EXISTS (
     SELECT 1 FROM services w JOIN service_upstream_bindings sb ON sb.service_id = w.id,
            LATERAL (SELECT pb.supplier_id FROM product_upstream_bindings pb WHERE pb.product_id = w.product_id
                     UNION ALL SELECT a.supplier_id FROM product_upstream_alternates a WHERE a.product_id = w.product_id) b
      WHERE w.id = $1 AND b.supplier_id <> sb.supplier_id
        AND NOT EXISTS (SELECT 1 FROM service_upstream_attempts t WHERE t.service_id = w.id AND t.supplier_id = b.supplier_id)) AS other`,
);
