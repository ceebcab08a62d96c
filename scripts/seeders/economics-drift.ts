import type { DomainDeps } from '../../domain/deps.js';
import { checkPriceDrift } from '../../domain/economics/price-drift.js';
import type { RunningSandboxes } from '../../sandbox/launcher.js';
import { DEMO_SUPPLIER_CODE } from './supplier.js';

/** The demo's drifting product: the sandbox's bare-metal server (imported at +20 % by `seedDemoSupplier`). */
const DRIFT_UPSTREAM_PID = 201;
/** Its upstream monthly price after the rise: 899.00 → 1000.00 leaves our 1078.80 a 7.30 % margin, under the 10 % floor but above cost. */
const RAISED_MONTHLY = '1000.00';

/**
 * Dev: one product flagged for upstream price drift (issue #29 §2). The check runs once at the
 * sandbox's own prices (the baseline), the upstream sandbox then raises the bare-metal server's
 * monthly price through its control route, and the check runs again: the admin list
 * (`GET /api/v2/admin/economics/price-drift`) shows the product with the old and new upstream
 * price. Idempotent: an unchanged price records nothing new (one finding per change).
 */
export async function seedEconomicsDriftDemo(deps: DomainDeps, sandboxes: RunningSandboxes): Promise<string[]> {
  const supplier = await deps.db.models.Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (!supplier) return [];
  const binding = await deps.db.models.ProductUpstreamBinding.findOne({ where: { supplier_id: supplier.id, upstream_product_id: String(DRIFT_UPSTREAM_PID) } });
  if (!binding) return [];
  const baseline = await checkPriceDrift(deps, { productIds: [binding.product_id] });
  const response = await fetch(`${sandboxes.upstream.baseUrl}/__control/prices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pid: DRIFT_UPSTREAM_PID, cycles: { monthly: RAISED_MONTHLY } }),
  });
  if (!response.ok) throw new Error(`upstream sandbox refused the price change: ${response.status}`);
  const after = await checkPriceDrift(deps, { productIds: [binding.product_id] });
  const found = baseline.new_findings + after.new_findings;
  return found > 0 ? [`price-drift:product ${binding.product_id} (${found} findings)`] : [];
}
