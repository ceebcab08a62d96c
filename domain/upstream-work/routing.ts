import { sqlOne } from '../../db/sql.js';
import type { UpstreamRoutingPolicy } from '../../db/models/catalogue.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import type { BillingPeriod } from '../catalogue/billing-periods.js';
import { bindingLabel, type ProductBinding, productBindings } from '../catalogue/product-bindings.js';
import { stockStatus } from '../catalogue/stock.js';
import type { DomainDeps } from '../deps.js';
import { balanceCovers, refreshSupplierBalance } from '../economics/funds.js';
import { costAbovePrice, holdBelowCostOn } from '../economics/hold.js';
import { upstreamCostOf, upstreamPricesOf } from '../economics/price-points.js';
import { supplierAvailability, supplierBreakerStates } from '../suppliers/health.js';
import { readUpstreamProduct } from '../suppliers/product-import.js';
import { getSupplier } from '../suppliers/suppliers.js';

/**
 * The routing decision at the upstream purchase (issue #38, docs/fulfilment.md "Several suppliers
 * per product"): among a product's bindings (`productBindings`), the ones that can sell now, in
 * the order of the product's policy, and the one chosen, with a Chinese reason per binding left
 * out and one summary sentence for the work's history. Each rule is the one of its owner, never
 * a copy: the breaker (`supplierBreakerStates`, then `supplierAvailability` only where a probe is
 * needed), the upstream product and its stock (`readUpstreamProduct`, `stockStatus`), its cost
 * (`upstreamCostOf`: the one pricing function on the upstream's prices), the hold below cost
 * (`holdBelowCostOn`, `costAbovePrice`) and the funds (`refreshSupplierBalance`, `balanceCovers`).
 * It writes nothing of its own (the balance read keeps `supplier_balances` as every read does).
 */

export type RoutingCandidate = {
  /** The further binding's id; null for the first binding. */
  bindingId: number | null;
  priority: number;
  supplierId: number | null;
  supplierCode: string | null;
  /** `供应商「名称」`: how the admin reads it (the customer never sees it). */
  label: string;
  providerKey: string;
  upstreamProductId: string;
  /** What the upstream charges now for this period and configuration; null when not read or not priced. */
  cost: string | null;
  /** The supplier balance read for this decision; null when not read (or unreadable). */
  balance: string | null;
  /** true: can sell now; false: left out (`reason`); null: not checked, an earlier one was chosen. */
  eligible: boolean | null;
  /** Chinese, read after the label: "余额不足（…）"; null when eligible. */
  reason: string | null;
  /** This decision claimed the supplier's half-open probe (its next call closes or reopens the breaker). */
  probe: boolean;
};

export type RoutingDecision = {
  productId: number;
  policy: UpstreamRoutingPolicy;
  /** Every binding, in the policy's order. */
  candidates: RoutingCandidate[];
  chosen: RoutingCandidate | null;
  /** One Chinese sentence for the history: "供应商「A」余额不足，改由供应商「B」开通". */
  summary: string;
};

export type RoutingInput = {
  productId: number;
  /** The service being provisioned: its configuration prices the upstream's cost (unless `config` is given). */
  serviceId?: number | undefined;
  billingPeriod: BillingPeriod;
  /** Our price of the service (one unit, the period's), against which the hold compares the cost. */
  price: string;
  /** A service's `config` (field → `{ value }`); read from the service when absent. */
  config?: Record<string, unknown> | null | undefined;
  /** The work's trace id, passed to every supplier call. */
  traceId?: string | undefined;
  /** Suppliers this work already failed at (failover): left out with the reason given, never asked again. */
  exclude?: ReadonlyArray<{ supplierId: number; reason: string }> | undefined;
};

const ID = /^[1-9][0-9]{0,9}$/;

/** How long routing waits for one supplier's product read (a supplier that does not answer is left out, not waited for). */
const ROUTING_READ_TIMEOUT_MS = 8000;

/** A binding that cannot be bought whatever the supplier says. */
function staticReason(binding: ProductBinding): string | null {
  if (binding.supplier_id === null) return '未指定供应商';
  if (binding.supplier_status !== 'active') return '已停用';
  if (binding.plugin_key === null) return '未关联可用的上游插件';
  if (!ID.test(binding.upstream_product_id)) return '上游商品编号无效';
  return null;
}

type Inspection = { cost: string | null; reason: string | null };

export async function routeProvisioning(deps: DomainDeps, input: RoutingInput): Promise<RoutingDecision> {
  const read = await productBindings(deps, input.productId);
  if (!read) return { productId: input.productId, policy: 'priority', candidates: [], chosen: null, summary: '商品不存在或已删除，无法自动开通' };
  const config = input.config !== undefined ? input.config : input.serviceId !== undefined ? await serviceConfig(deps, input.serviceId) : null;
  const candidates: RoutingCandidate[] = read.bindings.map((b) => ({
    bindingId: b.id,
    priority: b.priority,
    supplierId: b.supplier_id,
    supplierCode: b.supplier_code,
    label: bindingLabel(b),
    providerKey: b.provider_key,
    upstreamProductId: b.upstream_product_id,
    cost: null,
    balance: null,
    eligible: null,
    reason: null,
    probe: false,
  }));
  if (candidates.length === 0) return { productId: read.productId, policy: read.policy, candidates, chosen: null, summary: '商品未绑定上游供应商，无法自动开通' };

  const fixed = new Map<RoutingCandidate, string>();
  const excluded = new Map((input.exclude ?? []).map((e) => [e.supplierId, e.reason]));
  read.bindings.forEach((b, i) => {
    const reason = (b.supplier_id !== null ? excluded.get(b.supplier_id) : undefined) ?? staticReason(b);
    if (reason) fixed.set(candidates[i] as RoutingCandidate, reason);
  });
  const live = candidates.filter((c) => !fixed.has(c));
  const states = await supplierBreakerStates(deps, [...new Set(live.map((c) => c.supplierId as number))]);
  const closed = (c: RoutingCandidate) => states.get(c.supplierId as number) === 'closed';

  const holdOn = await holdBelowCostOn(deps);
  const productReads = new Map<string, Promise<Inspection>>();
  const balances = new Map<number, Promise<string | null>>();
  const inspected = new Map<RoutingCandidate, Inspection>();
  const inspect = async (c: RoutingCandidate): Promise<Inspection> => {
    const key = `${c.supplierId}:${c.upstreamProductId}`;
    if (!productReads.has(key)) productReads.set(key, readCandidate(deps, c, { period: input.billingPeriod, config, price: input.price, holdOn, traceId: input.traceId }));
    const result = await (productReads.get(key) as Promise<Inspection>);
    inspected.set(c, result);
    c.cost = result.cost;
    return result;
  };
  const fundsReason = async (c: RoutingCandidate): Promise<string | null> => {
    const supplierId = c.supplierId as number;
    if (!balances.has(supplierId)) {
      balances.set(
        supplierId,
        refreshSupplierBalance(deps, supplierId, { ...(input.traceId ? { traceId: input.traceId } : {}), needed: c.cost }).catch((err: unknown) => {
          deps.logger.warn({ err: err instanceof Error ? err.message : String(err), supplierId }, 'supplier balance not read for routing');
          return null;
        }),
      );
    }
    c.balance = await (balances.get(supplierId) as Promise<string | null>);
    if (balanceCovers(c.balance, c.cost)) return null;
    return `余额不足（余额 ${formatMoney(c.balance as string)} 元，需 ${formatMoney(c.cost as string)} 元）`;
  };

  // The order: by priority; or, lowest cost first (every supplier that may be called is read for it), ties by priority.
  if (read.policy === 'lowest_cost') await Promise.all(live.filter(closed).map(inspect));
  const ordered = read.policy === 'lowest_cost' ? [...candidates].sort(byCost) : candidates;

  /** The checks a callable supplier answers: the product (stock, cost, hold), then the funds. */
  const decide = async (c: RoutingCandidate): Promise<boolean> => {
    const found = inspected.get(c) ?? (await inspect(c));
    const reason = found.reason ?? (await fundsReason(c));
    c.eligible = reason === null;
    c.reason = reason;
    return c.eligible;
  };

  let chosen: RoutingCandidate | null = null;
  for (const c of ordered) {
    if (fixed.has(c) || !closed(c)) continue;
    if (await decide(c)) {
      chosen = c;
      break;
    }
  }
  // Suppliers whose breaker is not closed: asked (and a probe claimed) only when no closed one can take the work.
  for (const c of ordered) {
    if (chosen || fixed.has(c) || closed(c)) continue;
    const availability = await supplierAvailability(deps, c.supplierId as number);
    if (!availability.mayCall) {
      c.eligible = false;
      c.reason = `熔断中，暂停分配新开通${availability.retryAt ? `（${availability.retryAt.toISOString()} 后可试探）` : ''}`;
      continue;
    }
    c.probe = availability.probe;
    if (await decide(c)) chosen = c;
  }
  for (const c of ordered) {
    const reason = fixed.get(c);
    if (reason) {
      c.eligible = false;
      c.reason = reason;
    } else if (c.eligible === null && !closed(c)) {
      c.eligible = false;
      c.reason = '熔断中，暂停分配新开通（未试探：已由其他绑定开通）';
    } else if (c.eligible === null) {
      c.reason = '未检查：已选定更靠前的绑定';
    }
  }
  return { productId: read.productId, policy: read.policy, candidates: ordered, chosen, summary: summarise(ordered, chosen, read.policy) };
}

async function serviceConfig(deps: DomainDeps, serviceId: number): Promise<Record<string, unknown> | null> {
  const row = await sqlOne<{ config: Record<string, unknown> | null }>(deps, 'SELECT config FROM services WHERE id = $1', [serviceId]);
  return row?.config ?? null;
}

/** One upstream product read: withdrawn, out of stock, not priced for this selection, or above our price while the hold is on. */
async function readCandidate(
  deps: DomainDeps,
  c: RoutingCandidate,
  selection: { period: BillingPeriod; config: Record<string, unknown> | null; price: string; holdOn: boolean; traceId: string | undefined },
): Promise<Inspection> {
  let upstream;
  try {
    // Bounded: routing runs inside prepare (a local activity of 30 s), which may read several suppliers.
    upstream = await readUpstreamProduct(deps, await getSupplier(deps, c.supplierId as number), Number(c.upstreamProductId), { traceId: selection.traceId, timeoutMs: ROUTING_READ_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === ErrorCode.SUPPLIER_REFUSED) return { cost: null, reason: `上游商品 ${c.upstreamProductId} 不可用（已下架或不存在）：${error.message}` };
    return { cost: null, reason: `读取上游商品失败：${error.message}` };
  }
  const cost = upstreamCostOf(upstreamPricesOf(upstream), { name: upstream.name, period: selection.period, config: selection.config });
  const costText = cost === null ? null : formatMoney(cost);
  if (stockStatus(upstream.stock.controlled, upstream.stock.qty) === 'out_of_stock') return { cost: costText, reason: '上游缺货' };
  if (costText === null) return { cost: null, reason: '上游不提供该计费周期或配置的价格' };
  if (selection.holdOn && costAbovePrice(costText, selection.price)) {
    return { cost: costText, reason: `上游成本 ${costText} 元高于售价 ${formatMoney(selection.price)} 元（已开启低于成本暂停销售）` };
  }
  return { cost: costText, reason: null };
}

/** Lowest known cost first (unknown last), ties by priority. */
function byCost(a: RoutingCandidate, b: RoutingCandidate): number {
  if (a.cost !== null && b.cost !== null) {
    const diff = money(a.cost).comparedTo(b.cost);
    if (diff !== 0) return diff;
  } else if (a.cost !== b.cost) {
    return a.cost === null ? 1 : -1;
  }
  return a.priority - b.priority;
}

function summarise(ordered: RoutingCandidate[], chosen: RoutingCandidate | null, policy: UpstreamRoutingPolicy): string {
  const skipped = (list: RoutingCandidate[]) => list.filter((c) => c.eligible === false).map((c) => `${c.label}${c.reason}`);
  if (!chosen) {
    const reasons = skipped(ordered);
    return reasons.length > 0 ? `所有上游绑定均无法开通：${reasons.join('；')}` : '所有上游绑定均无法开通';
  }
  const before = skipped(ordered);
  const how = policy === 'lowest_cost' ? `按成本最低${chosen.cost ? `（${chosen.cost} 元）` : ''}` : '按优先级';
  if (before.length === 0) return `${how}由${chosen.label}开通`;
  return `${before.join('，')}，改由${chosen.label}开通`;
}
