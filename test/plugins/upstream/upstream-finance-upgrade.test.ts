import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { buyCloudHost, field, newDownstream, runFinance, runOk } from './finance-harness.js';

/** The CPU option of sandbox product 101 and its sub-options (1, 2, 4 cores; +0, +20, +60 a month). */
const CPU = '10101';
const ONE_CORE = 1010101;
const FOUR_CORES = 1010103;

describe('upstream finance configuration changes (host_upgrade)', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });
  beforeEach(() => sandbox.control.clearFaults());
  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  it('asks for an upgrade bill of the difference, answers the same bill again, and applies the configuration once paid', async () => {
    // Bought with 2 cores.
    const { host_id: hostId } = await buyCloudHost(sandbox, newDownstream());
    const upgrade = await runOk(sandbox, 'upstream.host_upgrade', { host_id: hostId, config: { [CPU]: FOUR_CORES } });
    const invoiceId = field<number>(upgrade, 'invoice_id');
    expect(upgrade).toEqual({ host_id: hostId, invoice_id: invoiceId, amount: '40.00' });
    expect((await runOk(sandbox, 'upstream.host_upgrade', { host_id: hostId, config: { [CPU]: FOUR_CORES } }))['invoice_id']).toBe(invoiceId);
    expect(sandbox.control.host(hostId)?.config[CPU]).toBe('1010102');
    const check = await runOk(sandbox, 'upstream.check_order', { host_id: hostId });
    expect(check['invoices']).toContainEqual(expect.objectContaining({ invoice_id: invoiceId, kind: 'upgrade', status: 'unpaid', paid: false, total: '40.00' }));

    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    expect(sandbox.control.host(hostId)?.config[CPU]).toBe(String(FOUR_CORES));
    expect(sandbox.control.ledger().upgrades[String(hostId)]).toBe(1);

    // A downgrade's bill is 0.00; paying it applies it.
    const down = await runOk(sandbox, 'upstream.host_upgrade', { host_id: hostId, config: { [CPU]: ONE_CORE } });
    expect(down['amount']).toBe('0.00');
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: field<number>(down, 'invoice_id') });
    expect(sandbox.control.host(hostId)?.config[CPU]).toBe(String(ONE_CORE));
  });

  it('classifies refusals, bad input and a committed request that timed out', async () => {
    const { host_id: hostId } = await buyCloudHost(sandbox, newDownstream());
    expect(await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: {} } })).toMatchObject({
      success: false,
      data: { error_kind: 'permanent', error_code: 'invalid_input' },
    });
    expect(await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: { '99999': 1 } } })).toMatchObject({
      success: false,
      data: { error_kind: 'permanent' },
    });
    expect(await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: { [CPU]: 1010102 } } })).toMatchObject({
      success: false,
      data: { error_kind: 'permanent' },
    });
    sandbox.control.failNext(1, 'refused', { path: '/host/upgrade' });
    expect(await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: { [CPU]: FOUR_CORES } } })).toMatchObject({
      success: false,
      data: { error_kind: 'permanent' },
    });
    sandbox.control.failNext(1, 'timeout', { path: '/host/upgrade', afterCommit: true });
    const timedOut = await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: { [CPU]: FOUR_CORES } }, config: { timeout_ms: 400 } });
    expect(timedOut).toMatchObject({ success: false, data: { error_kind: 'ambiguous' } });
    const check = await runOk(sandbox, 'upstream.check_order', { host_id: hostId });
    const pending = field<Array<{ invoice_id: number; kind: string; status: string }>>(check, 'invoices').filter((i) => i.kind === 'upgrade' && i.status === 'unpaid');
    expect(pending).toHaveLength(1);
    sandbox.control.failNext(1, 'html500', { path: '/host/upgrade' });
    expect(await runFinance(sandbox, 'upstream.host_upgrade', { payload: { host_id: hostId, config: { [CPU]: FOUR_CORES } } })).toMatchObject({ success: false });
  });
});
