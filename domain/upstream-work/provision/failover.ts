import { inTransaction, sqlOne, sqlRows, statement } from '../../../db/sql.js';
import type { BillingPeriod } from '../../catalogue/billing-periods.js';
import type { DomainDeps } from '../../deps.js';
import { countServiceEvent } from '../../services/service-events.js';
import { supplierBreakerStates } from '../../suppliers/health.js';
import { UPSTREAM_FUNDS_TIMEOUT } from '../../../workflows/upstream/contract.js';
import { routeProvisioning } from '../routing.js';
import { routingDetail } from './prepare.js';
import { probeUpstreamOrder } from './upstream-order.js';

/**
 * Failover of a provisioning to the product's next binding (issue #38, docs/fulfilment.md
 * "Failover"): after its purchase at one supplier failed for a reason that supplier will not
 * change soon, the service's upstream binding moves to the next binding that can sell, once, and
 * the workflow prepares and buys again there. Exactly once across suppliers:
 * - nothing moves once a payment was sent at the first supplier (`pay_attempted_at`): a paid or
 *   maybe-paid bill is that supplier's host, settled there;
 * - a checkout whose answer was lost is checked at the first supplier first (the order probe);
 *   if that supplier cannot answer, nothing moves;
 * - the move is one guarded statement (the binding still at that supplier, still unpaid) that
 *   also writes what the first supplier holds (`service_upstream_attempts`: its order, its unpaid
 *   bill, its host) and the history row, so a replayed or concurrent failover moves nothing twice.
 */

/** Failure codes that are a supplier refusing this sale for good: failed over whatever its breaker says. */
export const FAILOVER_CODES: ReadonlySet<string> = new Set(['out_of_stock', 'product_gone', UPSTREAM_FUNDS_TIMEOUT]);

export type FailoverInput = {
  serviceId: number;
  workflowId: string;
  /** The supplier the failed purchase was made at (the prepared purchase's). */
  fromSupplierId: number;
  failure: { stage: string; code: string; reason: string };
};

export type FailoverOutcome =
  /** The binding moved (now, or by an earlier attempt of this step): prepare and buy again. */
  | { moved: true; supplierId: number; summary: string }
  /** Stays where it is: the failure parks for an admin, with `reason` when it says more than the failure's own. */
  | { moved: false; reason: string | null };

type Held = {
  product_id: number;
  billing_period: BillingPeriod;
  price: string;
  config: Record<string, unknown> | null;
  downstream_token: string | null;
  supplier_id: number;
  supplier_name: string | null;
  checkout_attempted_at: Date | null;
  pay_attempted_at: Date | null;
  upstream_paid_at: Date | null;
  upstream_invoice_id: string | null;
  moved_from: boolean;
  tried: Array<{ supplierId: number; reason: string }>;
};

/** The service's binding as it stands, and the suppliers it already left. */
const HELD = statement(
  `SELECT w.product_id, w.billing_period, w.price::text AS price, w.config, w.downstream_token,
          sb.supplier_id, sp.name AS supplier_name, sb.checkout_attempted_at, sb.pay_attempted_at, sb.upstream_paid_at, sb.upstream_invoice_id::text AS upstream_invoice_id,
          sb.supplier_id <> $2 AND EXISTS (SELECT 1 FROM service_upstream_attempts t WHERE t.service_id = w.id AND t.supplier_id = $2) AS moved_from,
          COALESCE((SELECT json_agg(json_build_object('supplierId', t.supplier_id, 'reason', t.reason) ORDER BY t.id)
                      FROM service_upstream_attempts t WHERE t.service_id = w.id), '[]'::json) AS tried
     FROM services w
     JOIN service_upstream_bindings sb ON sb.service_id = w.id
     LEFT JOIN suppliers sp ON sp.id = sb.supplier_id
    WHERE w.id = $1`,
);

/**
 * The move, one statement: the binding leaves supplier `$2` only while nothing was paid there;
 * what that supplier held becomes an attempt row; the service names the new supplier.
 */
const MOVE = statement(
  `WITH left_behind AS (
     SELECT sb.* FROM service_upstream_bindings sb
      WHERE sb.service_id = $1 AND sb.supplier_id = $2 AND sb.pay_attempted_at IS NULL AND sb.upstream_paid_at IS NULL
      FOR UPDATE),
   attempt AS (
     INSERT INTO service_upstream_attempts (service_id, supplier_id, plugin_id, provider_key, upstream_product_id, upstream_order_id,
                                            upstream_invoice_id, upstream_host_id, checkout_attempted_at, code, reason, workflow_id)
     SELECT l.service_id, l.supplier_id, l.plugin_id, l.provider_key, l.upstream_product_id, l.upstream_order_id,
            l.upstream_invoice_id, l.upstream_host_id, l.checkout_attempted_at, $3, $4, $5
       FROM left_behind l
     ON CONFLICT (service_id, supplier_id) DO NOTHING RETURNING id),
   binding AS (
     UPDATE service_upstream_bindings sb
        SET supplier_id = $6, plugin_id = $7, provider_key = $8, upstream_product_id = $9, upstream_order_id = NULL, upstream_invoice_id = NULL,
            upstream_host_id = NULL, checkout_attempted_at = NULL, upstream_amount = NULL, updated_at = now()
       FROM left_behind l WHERE sb.service_id = l.service_id RETURNING sb.service_id),
   service AS (
     UPDATE services SET supplier_id = $6, provider_key = $8, plugin_key = $10, updated_at = now()
      WHERE id = (SELECT b.service_id FROM binding b) RETURNING id)
   INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id)
   SELECT s.id, 'provision', 'failover', 'succeeded', $11, $12::jsonb, $5 FROM service s
   RETURNING id`,
);

/** The chosen binding's plugin key (the service snapshots it, as prepare does). */
const PLUGIN_KEY = statement(
  `SELECT pl.key FROM suppliers s LEFT JOIN plugins pl ON pl.id = COALESCE(s.plugin_id, $2::int) WHERE s.id = $1`,
);

/**
 * Decides and carries out the failover of `provision:<serviceId>` after `failure` at the
 * supplier the service is bound to. Calls suppliers (the probe, the routing reads) before its
 * one transaction; safe to repeat (a second call after a move answers the move).
 */
export async function failoverProvisioning(deps: DomainDeps, input: FailoverInput): Promise<FailoverOutcome> {
  const { serviceId, workflowId, failure } = input;
  const held = await sqlOne<Held>(deps, HELD, [serviceId, input.fromSupplierId]);
  if (!held) return { moved: false, reason: null };
  // A repeat of a move already made (the activity retried after its commit): continue at the new supplier.
  if (held.moved_from) return { moved: true, supplierId: held.supplier_id, summary: '已切换供应商' };
  // Bound elsewhere than where the purchase failed (an admin's change), or a payment sent: it stays.
  if (held.supplier_id !== input.fromSupplierId || held.pay_attempted_at || held.upstream_paid_at) return { moved: false, reason: null };
  const from = held.supplier_id;
  const fromLabel = `供应商「${held.supplier_name ?? `#${from}`}」`;
  let why: string;
  if (FAILOVER_CODES.has(failure.code)) {
    why = failure.reason;
  } else {
    const state = (await supplierBreakerStates(deps, [from])).get(from);
    if (state === 'closed') return { moved: false, reason: null };
    why = `供应商熔断中（${failure.reason}）`;
  }

  // A checkout sent whose answer was lost: the first supplier is asked first; never bought elsewhere before it answers.
  if (held.checkout_attempted_at && !held.upstream_invoice_id) {
    try {
      await probeUpstreamOrder(deps, {
        serviceId,
        supplierId: from,
        traceId: workflowId,
        downstream: { token: held.downstream_token ?? '', url: deps.config.publicBaseUrl, service_id: serviceId },
      });
    } catch (err) {
      deps.logger.warn({ serviceId, supplierId: from, err: err instanceof Error ? err.message : String(err) }, 'failover: the lost checkout could not be checked');
      return {
        moved: false,
        reason: `${fromLabel}${why}；其下单结果未知且暂时无法核实，须先在该供应商核实订单，不改由其他供应商开通`.slice(0, 255),
      };
    }
  }

  const decision = await routeProvisioning(deps, {
    productId: held.product_id,
    serviceId,
    billingPeriod: held.billing_period,
    price: held.price,
    config: held.config,
    traceId: workflowId,
    exclude: [...held.tried, { supplierId: from, reason: why }].map((t) => ({ supplierId: t.supplierId, reason: `本次开通已失败：${t.reason}` })),
  });
  const chosen = decision.chosen;
  if (!chosen || chosen.supplierId === null) {
    return { moved: false, reason: decision.summary.slice(0, 255) };
  }
  const binding = await bindingOf(deps, decision.productId, chosen.bindingId);
  if (!binding) return { moved: false, reason: `${decision.summary}（绑定已变更，请重试）`.slice(0, 255) };
  const plugin = await sqlOne<{ key: string | null }>(deps, PLUGIN_KEY, [chosen.supplierId, binding.plugin_id]);
  const summary = `${fromLabel}${why}，改由${chosen.label}开通`;
  const moved = await inTransaction(deps, async (tx) => {
    const rows = await sqlRows(
      deps,
      MOVE,
      [
        serviceId,
        from,
        failure.code.slice(0, 64),
        why.slice(0, 500),
        workflowId,
        chosen.supplierId,
        binding.plugin_id,
        binding.provider_key,
        binding.upstream_product_id,
        plugin?.key ?? '',
        summary.slice(0, 255),
        JSON.stringify({ from_supplier_id: from, failure, ...routingDetail(decision) }),
      ],
      tx,
    );
    if (rows.length > 0) countServiceEvent({ kind: 'provision', stage: 'failover', status: 'succeeded' }, tx);
    return rows.length > 0;
  });
  if (!moved) return { moved: false, reason: null };
  return { moved: true, supplierId: chosen.supplierId, summary };
}

/** One binding of the product (`id` null: the first), as routing chose it. */
async function bindingOf(deps: DomainDeps, productId: number, bindingId: number | null) {
  return sqlOne<{ plugin_id: number | null; provider_key: string; upstream_product_id: string }>(
    deps,
    bindingId === null
      ? 'SELECT plugin_id, provider_key, upstream_product_id FROM product_upstream_bindings WHERE product_id = $1 AND $2::int IS NULL'
      : 'SELECT plugin_id, provider_key, upstream_product_id FROM product_upstream_alternates WHERE product_id = $1 AND id = $2',
    [productId, bindingId],
  );
}
