import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { getServiceMargin } from '../../../domain/economics/margins.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_CLIENT, seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedDemoEconomics } from '../../../scripts/seeders/economics-costs.js';
import { seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { PROVISION_TEST_ENV } from '../../helpers/provisioning.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, env: PROVISION_TEST_ENV });
  ({ sandbox } = await startUpstreamForPlatform(platform));
  await seedDemoData(platform.deps);
  await seedDemoCatalogue(platform.deps);
  await seedDemoSupplier(platform.deps, sandbox.baseUrl);
});
afterAll(async () => {
  await sandbox?.stop();
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
  });
});
