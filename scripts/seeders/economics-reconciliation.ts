import type { DomainDeps } from '../../domain/deps.js';
import { DUE_DATE_TOLERANCE_MS } from '../../domain/economics/reconciliation/compare.js';
import { reconcileSupplier } from '../../domain/economics/reconciliation/reconcile.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';
import { DEMO_SUPPLIER_CODE } from './supplier.js';

/**
 * Dev: one reconciliation run of the demo supplier that leaves one finding to look at in
 * `GET /api/v2/admin/economics/reconciliation/findings`: a sandbox host no service of ours is
 * bound to (`unknown_upstream_host`, the money-leaking kind). The demo services bound to sandbox
 * hosts get their upstream due date set to ours first (the sandbox's seeded hosts were due in
 * 2024), so they are not findings too. Runs once: a supplier that has a run is left to the daily task.
 */
export async function seedReconciliationDemo(deps: DomainDeps, upstream: UpstreamFinanceSandbox): Promise<string[]> {
  const supplier = await sqlOne<{ id: number }>(deps, `SELECT id FROM suppliers WHERE code = $1 AND plugin_id IS NOT NULL`, [DEMO_SUPPLIER_CODE]);
  if (!supplier) return [];
  if (await sqlOne(deps, `SELECT id FROM reconciliation_runs WHERE supplier_id = $1 LIMIT 1`, [supplier.id])) return [];

  const bound = await sqlRows<{ host_id: string; next_due_at: Date | null }>(
    deps,
    `SELECT b.upstream_host_id::text AS host_id, s.next_due_at FROM service_upstream_bindings b JOIN services s ON s.id = b.service_id
      WHERE b.supplier_id = $1 AND b.upstream_host_id IS NOT NULL AND s.status = 'active'`,
    [supplier.id],
  );
  for (const row of bound) {
    const host = upstream.control.host(Number(row.host_id));
    if (!host || !row.next_due_at) continue;
    if (Math.abs(host.nextDueDate * 1000 - row.next_due_at.getTime()) > DUE_DATE_TOLERANCE_MS) {
      upstream.control.updateHost(host.id, { nextDueDate: Math.floor(row.next_due_at.getTime() / 1000) });
    }
  }
  let line = await reconcileSupplier(deps, supplier.id);
  if (line.status === 'succeeded' && line.findings_seen === 0) {
    // Every sandbox host is ours: add one that is not, as if bought on the upstream's own panel.
    upstream.control.addHost({});
    line = await reconcileSupplier(deps, supplier.id);
  }
  return line.status === 'succeeded' ? [`reconciliation-findings:${line.findings_seen}`] : [];
}
