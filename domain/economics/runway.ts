import type { Decimal } from 'decimal.js';
import { sqlRows, statement } from '../../db/sql.js';
import { formatMoney, money, parseUpstreamAmount } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';
import { callSupplier } from '../suppliers/supplier-call.js';
import { refreshSupplierBalance } from './funds.js';
import { raiseAdminAlert } from './alerts.js';

/**
 * The runway of upstream funds (issue #29, docs/economics.md): per supplier, the upstream
 * cost of the renewals due within `runway_days` (setting `economics.runway_days`) against its
 * balance, daily; an alert (once per supplier and day) when the balance does not cover it.
 *
 * The cost of one renewal: the upstream amount of the service's last paid renewal (its
 * `service_orders` row), else the supplier's current price of the product and period
 * (`upstream.product_config`, read once per product in a run), else the service's own price (what
 * the customer pays: above the upstream cost under any markup, so the forecast errs on the
 * safe side). Each service due in the window counts once (a monthly service due twice in a long
 * window counts once).
 */

type DueRenewal = { supplier_id: number; service_id: number; billing_period: string; price: string; upstream_product_id: string; last_cost: string | null };

const DUE_RENEWALS = `
  SELECT b.supplier_id, s.id AS service_id, s.billing_period, s.price::text AS price, b.upstream_product_id,
         (SELECT o.upstream_amount::text FROM service_orders o
           WHERE o.service_id = s.id AND o.kind = 'renew' AND o.upstream_paid_at IS NOT NULL AND o.upstream_amount IS NOT NULL
           ORDER BY o.upstream_paid_at DESC, o.id DESC LIMIT 1) AS last_cost
    FROM services s JOIN service_upstream_bindings b ON b.service_id = s.id JOIN suppliers su ON su.id = b.supplier_id
   WHERE s.status IN ('active', 'suspended') AND s.next_due_at IS NOT NULL AND s.next_due_at < now() + make_interval(days => $1)
     AND su.status = 'active'
   ORDER BY b.supplier_id, s.id`;

const SAVE_RUNWAY = statement(
  `UPDATE supplier_balances SET runway_days = $2, runway_cost = $3, runway_renewals = $4, runway_estimated = $5, runway_at = now(), updated_at = now()
    WHERE supplier_id = $1 RETURNING balance::text AS balance`,
);

/** The (Asia/Shanghai, no daylight saving) day of now: a runway alert is once per supplier and day. */
const shanghaiDay = (): string => new Date(Date.now() + 8 * 3_600_000).toISOString().slice(0, 10);

/** The supplier's current price of a product and period, or null (read once per product in a run). */
function upstreamPrices(deps: DomainDeps) {
  const cache = new Map<string, Promise<Record<string, unknown> | null>>();
  return async (supplierId: number, upstreamProductId: string, period: string): Promise<string | null> => {
    const key = `${supplierId}:${upstreamProductId}`;
    let pricing = cache.get(key);
    if (!pricing) {
      const pid = Number(upstreamProductId);
      pricing = Number.isSafeInteger(pid) && pid > 0
        ? callSupplier(deps, supplierId, 'upstream.product_config', { pid }, { traceId: 'task:upstream.runway' })
            .then((data) => {
              const product = data['product'] as { pricing?: unknown } | undefined;
              return typeof product?.pricing === 'object' && product.pricing !== null ? (product.pricing as Record<string, unknown>) : null;
            })
            .catch(() => null)
        : Promise.resolve(null);
      cache.set(key, pricing);
    }
    const amount = parseUpstreamAmount((await pricing)?.[period]);
    return amount !== null && money(amount).gt(0) ? amount : null;
  };
}

export type RunwayForecast = { supplier_id: number; balance: string | null; cost: string; renewals: number; estimated: number; covered: boolean | null; alerted: boolean };

/** `upstream.runway` (daily): the forecast of every active supplier, kept on its balance row. */
export async function forecastRunway(deps: DomainDeps): Promise<{ days: number; suppliers: RunwayForecast[] }> {
  const { runway_days: days } = await readSettings(deps, economicsSettings);
  const due = await sqlRows<DueRenewal>(deps, DUE_RENEWALS, [days]);
  const suppliers = await sqlRows<{ id: number }>(deps, `SELECT id FROM suppliers WHERE status = 'active' ORDER BY id`, []);
  const priceOf = upstreamPrices(deps);
  const sums = new Map<number, { cost: Decimal; renewals: number; estimated: number }>(suppliers.map((s) => [s.id, { cost: money(0), renewals: 0, estimated: 0 }]));
  for (const r of due) {
    const sum = sums.get(r.supplier_id);
    if (!sum) continue;
    const current = r.last_cost ?? (await priceOf(r.supplier_id, r.upstream_product_id, r.billing_period));
    sum.cost = sum.cost.plus(current ?? r.price);
    sum.renewals += 1;
    if (current === null) sum.estimated += 1;
  }
  const out: RunwayForecast[] = [];
  for (const [supplierId, sum] of sums) {
    let balance: string | null = null;
    try {
      balance = await refreshSupplierBalance(deps, supplierId, { traceId: 'task:upstream.runway' });
    } catch (err) {
      deps.logger.warn({ err: err instanceof Error ? err.message : String(err), supplierId }, 'supplier balance not read for the runway');
    }
    const cost = formatMoney(sum.cost);
    const saved = await sqlRows<{ balance: string }>(deps, SAVE_RUNWAY, [supplierId, days, cost, sum.renewals, sum.estimated]);
    balance ??= saved[0]?.balance ?? null;
    const covered = balance === null ? null : money(balance).gte(cost);
    let alerted = false;
    if (covered === false) {
      const message = `上游余额 ${balance ?? ''} 元不足以支付未来 ${days} 天内到期的 ${sum.renewals} 笔续费（预计上游成本 ${cost} 元），请及时充值`;
      const day = shanghaiDay();
      alerted = await raiseAdminAlert(deps, {
        kind: 'runway_short',
        key: `runway:${supplierId}:${day}`,
        title: `供应商 #${supplierId} 上游余额不够未来 ${days} 天的续费`,
        message,
        subject: { supplier_id: supplierId },
        detail: { supplier_id: supplierId, occasion: day, balance, needed: cost, renewals: sum.renewals, days, started_at: new Date().toISOString(), ended_at: null },
      });
      if (alerted) {
        deps.logger.warn({ supplierId, balance, cost, days }, 'upstream runway not covered');
      }
    }
    out.push({ supplier_id: supplierId, balance, cost, renewals: sum.renewals, estimated: sum.estimated, covered, alerted });
  }
  return { days, suppliers: out };
}
