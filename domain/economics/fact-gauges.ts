import { sqlOne, sqlRows } from '../../db/sql.js';
import { type FactGauge, type FactRow, watchFacts } from '../../lib/metrics.js';
import type { DomainDeps } from '../deps.js';
import { countOpenAlerts } from './alerts.js';
import { AWAITING_FUNDS_COUNT_SQL } from './funds.js';
import { listSupplierHealth } from '../suppliers/health.js';
import { SUPPLIER_BREAKER_STATES } from '../../db/models/supplier.js';

/**
 * The rows behind the fact gauges (`lib/metrics.ts`), one bounded, indexed query each at scrape
 * time (docs/operations.md "Metrics"): unread alerts through `admin_alerts_open_idx`, one balance
 * per supplier (`supplier_balances`, keyed by supplier), the work waiting for funds (the
 * dashboard's count), supplier health (`listSupplierHealth`: one row per supplier, its window
 * through `supplier_calls_window_idx`).
 */
async function readFacts(deps: DomainDeps, gauge: FactGauge): Promise<FactRow[]> {
  switch (gauge) {
    case 'admin_alerts_open':
      return (await countOpenAlerts(deps)).map((r) => ({ labels: { kind: r.kind }, value: r.open }));
    case 'upstream_supplier_balance': {
      const rows = await sqlRows<{ code: string; balance: string }>(deps, 'SELECT s.code, b.balance::text AS balance FROM supplier_balances b JOIN suppliers s ON s.id = b.supplier_id', []);
      return rows.map((r) => ({ labels: { supplier: r.code }, value: Number(r.balance) }));
    }
    case 'upstream_work_awaiting_funds': {
      const row = await sqlOne<{ n: number }>(deps, AWAITING_FUNDS_COUNT_SQL, []);
      return [{ labels: {}, value: row?.n ?? 0 }];
    }
    case 'upstream_supplier_breaker':
      return (await listSupplierHealth(deps)).flatMap((h) => SUPPLIER_BREAKER_STATES.map((state) => ({ labels: { supplier: h.code, state }, value: h.state === state ? 1 : 0 })));
    case 'upstream_supplier_window_calls':
      return (await listSupplierHealth(deps)).map((h) => ({ labels: { supplier: h.code }, value: h.calls }));
    case 'upstream_supplier_failure_ratio':
      return (await listSupplierHealth(deps)).filter((h) => h.calls > 0).map((h) => ({ labels: { supplier: h.code }, value: h.failures / h.calls }));
    case 'upstream_supplier_latency_p95_ms':
      return (await listSupplierHealth(deps)).filter((h) => h.latency_p95_ms !== null).map((h) => ({ labels: { supplier: h.code }, value: h.latency_p95_ms ?? 0 }));
  }
}

/** Serves the fact gauges from this process's database; returns the way to stop. */
export function watchFactGauges(deps: DomainDeps): () => void {
  return watchFacts((gauge) => readFacts(deps, gauge));
}
