import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../../db/sql.js';
import { reconcileSupplier } from '../../../../domain/economics/reconciliation/reconcile.js';
import { invokeSupplierPlugin } from '../../../../domain/suppliers/supplier-plugin.js';
import { clearAllTokens } from '../../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { SANDBOX_CREDENTIALS } from '../../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../../sandbox/upstream-finance/server.js';
import { createTestSupplier, createUser, daysFromNow, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../../helpers/upstream-supplier.js';

/**
 * Reconciliation after a failover (issue #38), against two real upstream sandboxes: two
 * provisionings left supplier A for supplier B, each leaving at A an order whose host is pending
 * and whose bill is unpaid (a `service_upstream_attempts` row, written here directly as the move
 * writes it). Unpaid, they are accounted for; one paid at A by hand afterwards is told loudly.
 */
let platform: TestPlatform;
let sandboxA: UpstreamSandbox;
let sandboxB: UpstreamSandbox;
let supplierA: number;
let supplierB: number;
const left: Record<'kept' | 'paid', { service: number; host: number; bill: number }> = {
  kept: { service: 0, host: 0, bill: 0 },
  paid: { service: 0, host: 0, bill: 0 },
};
let strayBill: number;
let renewalBill: number;

type FindingRow = { kind: string; subject_key: string; state: string; service_id: number | null; amount: string | null; ours: Record<string, unknown>; theirs: Record<string, unknown> };

async function findingsOf(supplierId: number, state?: string): Promise<FindingRow[]> {
  return sqlRows<FindingRow>(
    platform.deps,
    `SELECT kind, subject_key, state, service_id, amount::text AS amount, ours, theirs FROM reconciliation_findings
      WHERE supplier_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY kind, subject_key`,
    [supplierId, state ?? null],
  );
}

const keys = (rows: FindingRow[]) => rows.map((f) => `${f.kind} ${f.subject_key}`).sort();

async function recordAttempt(which: 'kept' | 'paid'): Promise<void> {
  const at = left[which];
  await sqlOne(
    platform.deps,
    `INSERT INTO service_upstream_attempts (service_id, supplier_id, provider_key, upstream_product_id, upstream_order_id, upstream_invoice_id, upstream_host_id,
        checkout_attempted_at, code, reason, workflow_id)
     VALUES ($1, $2, 'upstream_finance_api', '101', $3, $4, $5, now(), 'supplier_funds_short', '上游余额不足超过等待时间，改由其他供应商开通', $6) RETURNING id`,
    [at.service, supplierA, 9000 + at.service, at.bill, at.host, `provision:${at.service}`],
  );
}

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform();
  ({ sandbox: sandboxA } = await startUpstreamForPlatform(platform));
  sandboxB = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  supplierA = (await createTestSupplier(platform, sandboxA.baseUrl, 'failover-from')).id;
  supplierB = (await createTestSupplier(platform, sandboxB.baseUrl, 'failover-to')).id;
  sandboxA.control.seedHosts(0);
  sandboxB.control.seedHosts(0);
  const userId = (await createUser(platform)).id;
  const due = daysFromNow(30);
  for (const which of ['kept', 'paid'] as const) {
    // Delivered by B: bound there, `services.supplier_id` names B.
    const delivered = sandboxB.control.addHost({ nextDueDate: Math.floor(due.getTime() / 1000) }).id;
    const service = await seedService(platform, { userId, nextDueAt: due, upstream: { supplierId: supplierB, hostId: delivered } });
    // What A holds from the first try: the order's host, pending, and its bill, unpaid.
    const host = sandboxA.control.addHost({ status: 'Pending' }).id;
    const bill = sandboxA.control.addBill({ type: 'product', status: 'Unpaid', total: '74.00', hostIds: [host] }).id;
    left[which] = { service, host, bill };
  }
  strayBill = sandboxA.control.addBill({ type: 'renew', total: '9.00' }).id;
});
afterAll(async () => {
  await sandboxA?.stop();
  await sandboxB?.stop();
  await platform?.close();
  clearAllTokens();
});

describe('what a failover leaves at the supplier it moved away from', () => {
  it('without the record of the attempts, the pending hosts would look like hosts nobody owns', async () => {
    const line = await reconcileSupplier(platform.deps, supplierA);
    expect(line).toMatchObject({ status: 'succeeded', hosts_compared: true, bills_compared: true, upstream_hosts: 2, upstream_bills: 3 });
    expect(keys(await findingsOf(supplierA, 'open'))).toEqual(
      [`unknown_upstream_host host:${left.kept.host}`, `unknown_upstream_host host:${left.paid.host}`, `unmatched_upstream_charge bill:${strayBill}`].sort(),
    );
  });

  it('an unpaid bill and a pending host of a recorded attempt are accounted for: no finding, the earlier ones resolved', async () => {
    await recordAttempt('kept');
    await recordAttempt('paid');
    const line = await reconcileSupplier(platform.deps, supplierA);
    expect(line).toMatchObject({ status: 'succeeded', findings_seen: 1, findings_opened: 0, findings_resolved: 2 });
    expect(keys(await findingsOf(supplierA, 'open'))).toEqual([`unmatched_upstream_charge bill:${strayBill}`]);
    // B delivered both services: its side matches.
    const atB = await reconcileSupplier(platform.deps, supplierB);
    expect(atB).toMatchObject({ status: 'succeeded', local_services: 2, findings_seen: 0 });
  });

  it('a bill of an attempt paid at that supplier after all is told loudly, with the host it started, never as an unmatched charge', async () => {
    // Someone pays the abandoned bill at A (its panel, or a script): the host there starts.
    const paid = await invokeSupplierPlugin(platform.deps, supplierA, { action: 'upstream.invoice_pay', payload: { invoice_id: left.paid.bill } });
    expect(paid.success).toBe(true);
    expect(sandboxA.control.host(left.paid.host)?.status).toBe('Active');
    // …and renews it by hand too: a paid bill naming the attempt's host.
    renewalBill = sandboxA.control.addBill({ type: 'renew', total: '74.00', hostIds: [left.paid.host] }).id;

    const line = await reconcileSupplier(platform.deps, supplierA);
    expect(line).toMatchObject({ status: 'succeeded', findings_opened: 3 });
    const open = await findingsOf(supplierA, 'open');
    expect(keys(open)).toEqual(
      [
        `live_after_failover host:${left.paid.host}`,
        `paid_after_failover bill:${left.paid.bill}`,
        `paid_after_failover bill:${renewalBill}`,
        `unmatched_upstream_charge bill:${strayBill}`,
      ].sort(),
    );
    const bill = open.find((f) => f.subject_key === `bill:${left.paid.bill}`);
    expect(bill).toMatchObject({
      service_id: left.paid.service,
      amount: '74.00',
      ours: { recorded: false, service_id: left.paid.service, delivered_by_supplier_id: supplierB, failover_code: 'supplier_funds_short', upstream_invoice_id: left.paid.bill, upstream_host_id: left.paid.host },
      theirs: { bill_id: left.paid.bill, type: 'product', status: 'paid', amount: '74.00' },
    });
    expect(open.find((f) => f.kind === 'live_after_failover')).toMatchObject({ service_id: left.paid.service, theirs: { host_id: left.paid.host, status: 'active' }, ours: { delivered_by_supplier_id: supplierB } });
    // Nothing about the attempt still unpaid.
    expect(JSON.stringify(open)).not.toContain(`:${left.kept.host}"`);
    expect(open.some((f) => f.subject_key === `bill:${left.kept.bill}`)).toBe(false);

    // Loud: a critical admin alert per finding (the unmatched charge stays a warning).
    const alerts = await sqlRows<{ severity: string; title: string }>(
      platform.deps,
      `SELECT severity, title FROM admin_alerts WHERE kind = 'reconciliation' AND (subject->>'supplier_id')::int = $1 AND title LIKE '%切换供应商%' ORDER BY id`,
      [supplierA],
    );
    expect(alerts).toHaveLength(3);
    expect(alerts.every((a) => a.severity === 'critical')).toBe(true);
    expect(alerts.map((a) => a.title)).toContain('对账差异：已切换供应商，原供应商的未付账单却已支付（可能有无人负责的主机）');

    // Seen again: the same rows, nothing opened twice.
    const again = await reconcileSupplier(platform.deps, supplierA);
    expect(again).toMatchObject({ findings_seen: 4, findings_opened: 0, findings_resolved: 0 });
  });

  it('the host stopped at that supplier resolves its finding; the paid bills stay (the money went)', async () => {
    sandboxA.control.updateHost(left.paid.host, { status: 'Terminated' });
    const line = await reconcileSupplier(platform.deps, supplierA);
    expect(line).toMatchObject({ status: 'succeeded', findings_resolved: 1 });
    expect(keys(await findingsOf(supplierA, 'open'))).toEqual(
      [`paid_after_failover bill:${left.paid.bill}`, `paid_after_failover bill:${renewalBill}`, `unmatched_upstream_charge bill:${strayBill}`].sort(),
    );
  });
});
