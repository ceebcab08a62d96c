import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { getServiceMargin } from '../../../domain/economics/margins.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_CLIENT, seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedDemoEconomics } from '../../../scripts/seeders/economics-costs.js';
import { DEMO_BACKUP_SUPPLIER, DEMO_SUPPLIER_CODE, seedDemoBackupSupplier, seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { SECOND_UPSTREAM } from '../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import { sqlRows } from '../../../db/sql.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { PROVISION_TEST_ENV } from '../../helpers/provisioning.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let sandbox2: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, env: PROVISION_TEST_ENV });
  ({ sandbox } = await startUpstreamForPlatform(platform));
  await seedDemoData(platform.deps);
  await seedDemoCatalogue(platform.deps);
  await seedDemoSupplier(platform.deps, sandbox.baseUrl);
  sandbox2 = await startUpstreamFinanceSandbox(SECOND_UPSTREAM);
  await seedDemoBackupSupplier(platform.deps, sandbox2.baseUrl);
});
afterAll(async () => {
  await sandbox?.stop();
  await sandbox2?.stop();
  await platform?.close();
});

describe('demo margins seeder', () => {
  it('buys two sandbox products through the real flow, once, so their services show a known cost and margin', async () => {
    const first = await seedDemoEconomics(platform.deps);
    expect(first).toHaveLength(2);
    expect(await seedDemoEconomics(platform.deps)).toEqual([]);
    const demo = await platform.deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
    const invoices = await platform.deps.db.models.Invoice.findAll({ where: { user_id: demo?.id ?? 0, trace_id: 'seed-economics', type: 'purchase' } });
    expect(invoices).toHaveLength(2);
    for (const invoice of invoices) {
      const service = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } }));
      const margin = await eventually(async () => {
        const m = await getServiceMargin(platform.deps, service.id);
        return m.costs.length === 1 ? m : null;
      }, 1200);
      expect(margin).toMatchObject({ cost_known: true, revenue: invoice.amount });
      expect(Number(margin.margin)).toBeGreaterThan(0);
    }
    expect(await checkLedgerIntegrity(platform.deps)).toEqual([]);
    // Issue #38: one purchase routed to each supplier; the demo cloud server's, by cost, to the backup, its history saying why.
    const delivered = await sqlRows<{ code: string; message: string | null }>(
      platform.deps,
      `SELECT sp.code, (SELECT e.message FROM service_events e WHERE e.service_id = s.id AND e.stage = 'prepare' AND e.status = 'succeeded' ORDER BY e.id LIMIT 1) AS message
         FROM services s JOIN suppliers sp ON sp.id = s.supplier_id WHERE s.invoice_id = ANY($1::int[]) ORDER BY sp.code`,
      [invoices.map((i) => i.id)],
    );
    expect(delivered.map((d) => d.code).sort()).toEqual([DEMO_BACKUP_SUPPLIER.code, DEMO_SUPPLIER_CODE].sort());
    expect(delivered.find((d) => d.code === DEMO_BACKUP_SUPPLIER.code)?.message).toMatch(/^已准备开通信息：按成本最低（\d+\.\d{2} 元）由供应商「备用云（演示）」开通$/);
  });
});
