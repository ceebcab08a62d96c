import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillItem } from '../../../plugins/upstream/upstream_finance/normalise/bill.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { field, runFinance } from './finance-harness.js';

describe('upstream finance bill list (upstream.bill_list)', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });
  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  it('reads every bill in pages of limit=100, the page count computed from the total', async () => {
    const paid = sandbox.control.addBill({ total: '59.00', hostIds: [5001] });
    sandbox.control.addBill({ total: '10.00', status: 'Unpaid', type: 'flow_packet', hostIds: [5002] });
    for (let i = 0; i < 148; i += 1) sandbox.control.addBill({ total: '1.00', status: 'Cancelled', type: 'upgrade' });
    sandbox.control.resetCounters();
    const result = await runFinance(sandbox, 'upstream.bill_list');
    expect(result.success, result.message).toBe(true);
    expect(result.data).toMatchObject({ supported: true, total: 150, pages: 2, complete: true });
    expect(sandbox.control.counters().paths['/billing/list']).toBe(2);
    const bills = field<BillItem[]>(result.data, 'bills');
    expect(bills).toHaveLength(150);
    expect(bills[0]).toEqual({ id: paid.id, type: 'renew', status: 'paid', amount: '59.00', host_ids: [5001], created_at: expect.any(String), paid_at: expect.any(String) });
    expect(bills[1]).toMatchObject({ type: 'traffic_package', status: 'unpaid', amount: '10.00', host_ids: [5002], paid_at: null });
    expect(bills[2]).toMatchObject({ type: 'upgrade', status: 'cancelled', host_ids: [] });
  });

  it('answers "no bill list" (a success, no bills) when the upstream answers HTTP 404', async () => {
    sandbox.control.failNext(1, 'not_found', { path: '/billing/list' });
    const result = await runFinance(sandbox, 'upstream.bill_list');
    expect(result.success, result.message).toBe(true);
    expect(result.data).toMatchObject({ supported: false, bills: [], total: 0 });
  });

  it('fails as transient on an HTML 500, like any other read', async () => {
    sandbox.control.failNext(3, 'html500', { path: '/billing/list' });
    const result = await runFinance(sandbox, 'upstream.bill_list');
    expect(result.success).toBe(false);
    expect(result.data).toMatchObject({ error_kind: 'transient' });
    sandbox.control.clearFaults();
  });
});
