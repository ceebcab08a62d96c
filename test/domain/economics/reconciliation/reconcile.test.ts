import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne } from '../../../../db/sql.js';
import { reconcileSupplier } from '../../../../domain/economics/reconciliation/reconcile.js';
import { clearAllTokens } from '../../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { LIST_TOTAL_SHAPES } from '../../../../sandbox/upstream-finance/types.js';
import { createTestSupplier, createUser, daysFromNow, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../../helpers/upstream-supplier.js';

/**
 * The upstream notes name no field for a list's total: the host list is read whole whether the
 * upstream answers it as `total`, `count`, `sum` with `max_page`, or not at all (then paged until
 * a short page). In each shape a vanished host is a `missing_upstream` finding and a fixed one is
 * resolved by the next run. The account holds more than one page of hosts.
 */
let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let supplierId: number;
let userId: number;

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  supplierId = (await createTestSupplier(platform, sandbox.baseUrl, 'recon-shapes')).id;
  userId = (await createUser(platform)).id;
  // 150 hosts: two pages of 100, the second short.
  sandbox.control.seedHosts(150);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

async function finding(kind: string, hostId: number) {
  return sqlOne<{ state: string; resolved_by_type: string | null }>(
    platform.deps,
    `SELECT state, resolved_by_type FROM reconciliation_findings WHERE supplier_id = $1 AND kind = $2 AND subject_key = $3`,
    [supplierId, kind, `host:${hostId}`],
  );
}

async function runNote(runId: number) {
  return (await sqlOne<{ note: string }>(platform.deps, 'SELECT note FROM reconciliation_runs WHERE id = $1', [runId]))?.note ?? '';
}

describe('a host list whose total has another name, or none', () => {
  for (const shape of LIST_TOTAL_SHAPES) {
    it(`finds a vanished host and resolves the finding when the total is answered as ${shape}`, async () => {
      sandbox.control.answerListTotalAs(shape);
      const ourDue = daysFromNow(20);
      const hostId = sandbox.control.addHost({ nextDueDate: Math.floor(ourDue.getTime() / 1000) }).id;
      const serviceId = await seedService(platform, { userId, nextDueAt: ourDue, upstream: { supplierId, hostId } });
      sandbox.control.removeHost(hostId);

      const line = await reconcileSupplier(platform.deps, supplierId);
      expect(line).toMatchObject({ status: 'succeeded', hosts_compared: true, bills_compared: true, upstream_hosts: 150 });
      expect(await runNote(line.run_id)).not.toContain('翻页期间发生变化');
      expect(await finding('missing_upstream', hostId)).toMatchObject({ state: 'open' });

      // Fixed here (the service ended): the next run resolves the finding itself.
      await sqlOne(platform.deps, `UPDATE services SET status = 'terminated' WHERE id = $1 RETURNING id`, [serviceId]);
      const next = await reconcileSupplier(platform.deps, supplierId);
      expect(next).toMatchObject({ status: 'succeeded', hosts_compared: true });
      expect(next.findings_resolved).toBeGreaterThanOrEqual(1);
      expect(await finding('missing_upstream', hostId)).toMatchObject({ state: 'resolved', resolved_by_type: 'system' });
    });
  }
});
