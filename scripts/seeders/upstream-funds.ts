import type { DomainDeps } from '../../domain/deps.js';
import { refreshSupplierBalances } from '../../domain/economics/funds.js';
import { forecastRunway } from '../../domain/economics/runway.js';

/**
 * Dev: the upstream funds page (GET /api/v2/admin/economics/funds, docs/economics.md) shows
 * figures from the first start: the suppliers' balances read from the sandbox and today's runway
 * forecast, as the `upstream.balances` and `upstream.runway` tasks would write them. Safe to
 * repeat (a read replaces the last one; a runway alert is written once per supplier and day).
 */
export async function seedDemoUpstreamFunds(deps: DomainDeps): Promise<string[]> {
  const balances = await refreshSupplierBalances(deps);
  const runway = await forecastRunway(deps);
  return [`supplier-balances:${String(balances['read'])}`, `runway:${runway.days}d×${runway.suppliers.length}`];
}
