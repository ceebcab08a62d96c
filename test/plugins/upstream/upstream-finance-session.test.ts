import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { field, runFinance } from './finance-harness.js';

type Product = { pricing: Record<string, string> };

describe('upstream finance session: login, token cache and refresh', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeEach(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await sandbox.stop();
  });

  afterAll(() => clearAllTokens());

  it('logs in once and reuses the cached token across several actions', async () => {
    for (const action of ['upstream.user', 'upstream.credit', 'upstream.catalogue', 'upstream.host_list']) {
      const result = await runFinance(sandbox, action);
      expect(result.success, `${action}: ${result.message}`).toBe(true);
    }
    const detail = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: 5001 } });
    expect(detail.success).toBe(true);
    const counters = sandbox.control.counters();
    expect(counters.logins).toBe(1);
    expect(counters.paths['/finance_api_login']).toBe(1);
    expect(counters.rejectedTokens).toBe(0);
  });

  it('answers the balance as a two-digit decimal string', async () => {
    sandbox.control.setCredit('1234.5');
    const result = await runFinance(sandbox, 'upstream.credit');
    expect(result).toMatchObject({ success: true, action: 'upstream.credit', data: { balance: '1234.50', currency: 'CNY' } });
  });

  it('keeps tokens apart per supplier', async () => {
    await runFinance(sandbox, 'upstream.credit', { payload: { supplier_id: 1 } });
    await runFinance(sandbox, 'upstream.credit', { payload: { supplier_id: 2 } });
    await runFinance(sandbox, 'upstream.credit', { payload: { supplier_id: 1 } });
    expect(sandbox.control.counters().logins).toBe(2);
  });

  it('refreshes ahead of expiry when less than five minutes are left, before the upstream refuses', async () => {
    await runFinance(sandbox, 'upstream.user');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + (7200 - 240) * 1000));
    const result = await runFinance(sandbox, 'upstream.credit');
    expect(result.success).toBe(true);
    const counters = sandbox.control.counters();
    expect(counters.logins).toBe(2);
    expect(counters.rejectedTokens).toBe(0);
  });

  it('logs in again after the token has expired instead of sending it', async () => {
    await runFinance(sandbox, 'upstream.user');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 7300 * 1000));
    const result = await runFinance(sandbox, 'upstream.host_list');
    expect(result.success).toBe(true);
    expect(sandbox.control.counters()).toMatchObject({ logins: 2, rejectedTokens: 0 });
  });

  it('on a 405 clears the cache, logs in once more and retries the call once', async () => {
    await runFinance(sandbox, 'upstream.user');
    sandbox.control.expireTokens();
    const result = await runFinance(sandbox, 'upstream.credit');
    expect(result.success).toBe(true);
    expect(result.diagnostics).toMatchObject({ session: { logins: 1, reloginsAfterRejection: 1 } });
    const counters = sandbox.control.counters();
    expect(counters.logins).toBe(2);
    expect(counters.rejectedTokens).toBe(1);
    expect(counters.paths['/cart/credit']).toBe(2);
  });

  it('does not take anonymous prices for a catalogue read with a revoked token', async () => {
    const fresh = await runFinance(sandbox, 'upstream.product_config', { payload: { pid: 101 } });
    const memberMonthly = field<Product>(fresh.data, 'product').pricing['monthly'];
    expect(memberMonthly).toBe('59.00');

    sandbox.control.expireTokens();
    const anonymous = (await (await fetch(`${sandbox.baseUrl}/cart/get_product_config?pid=101`)).json()) as { data: { products: { cycle: { billingcycle: string; product_price: string }[] } } };
    const anonymousMonthly = anonymous.data.products.cycle.find((c) => c.billingcycle === 'monthly')?.product_price;
    expect(anonymousMonthly).not.toBe(memberMonthly);
    sandbox.control.resetCounters();

    const again = await runFinance(sandbox, 'upstream.product_config', { payload: { pid: 101 } });
    expect(again.success).toBe(true);
    expect(field<Product>(again.data, 'product').pricing['monthly']).toBe(memberMonthly);
    const counters = sandbox.control.counters();
    expect(counters.anonymousCatalogueReads).toBe(0);
    expect(counters.logins).toBe(1);
  });

  it('does not take anonymous prices in the catalogue after the token has expired', async () => {
    const fresh = await runFinance(sandbox, 'upstream.catalogue');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 8000 * 1000));
    const later = await runFinance(sandbox, 'upstream.catalogue');
    expect(later.success).toBe(true);
    expect(later.data['groups']).toEqual(fresh.data['groups']);
    expect(sandbox.control.counters()).toMatchObject({ anonymousCatalogueReads: 0, logins: 2 });
  });

  it('login_check logs in afresh and never returns the token', async () => {
    await runFinance(sandbox, 'upstream.user');
    const result = await runFinance(sandbox, 'upstream.login_check');
    expect(result.success).toBe(true);
    expect(result.data['logged_in']).toBe(true);
    expect(result.data['token_expires_at']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(JSON.stringify(result)).not.toMatch(/eyJ/);
    expect(sandbox.control.counters().logins).toBe(2);
  });

  it('a wrong api key is a permanent failure with a Chinese message', async () => {
    const result = await runFinance(sandbox, 'upstream.credit', { config: { api_key: 'wrong-key' } });
    expect(result.success).toBe(false);
    expect(result.message).toBe('上游登录失败：账号或 API 密钥错误');
    expect(result.data).toMatchObject({ error_kind: 'permanent', error_code: 'login_failed', upstream_status: 400 });
    expect(result.diagnostics).toMatchObject({ upstream_message: '账号或API密钥错误' });
    expect(sandbox.control.counters().logins).toBe(0);
  });

  it('health_check reports a healthy supplier', async () => {
    const result = await runFinance(sandbox, 'health_check');
    expect(result).toMatchObject({ success: true, action: 'health_check', data: { healthy: true } });
  });
});
