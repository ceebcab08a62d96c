import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HostDetail } from '../../../plugins/upstream/upstream_finance/normalise/host.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { CLOUD_ORDER, buyCloudHost, field, newDownstream, runFinance, runOk } from './finance-harness.js';

describe('upstream finance purchase: probe, cart, checkout, pay, host lookup', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });

  beforeEach(() => {
    sandbox.control.clearFaults();
    sandbox.control.setProvisioningDelay({ polls: 0 });
    sandbox.control.partialPayments(0);
    sandbox.control.setCredit('10000.00');
    sandbox.control.setStock(101, null);
  });

  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  it('buys a host once: the host becomes active after slow provisioning and its detail has no password', async () => {
    sandbox.control.setProvisioningDelay({ polls: 2 });
    const downstream = newDownstream();

    const probe = await runOk(sandbox, 'upstream.purchase_probe', { downstream });
    expect(probe).toEqual({ existing: null });

    const cart = await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    expect(cart).toEqual({ cart_ready: true, existing: null, item_count: 1, amount: '124.00' });

    const checkout = await runOk(sandbox, 'upstream.purchase_checkout', { downstream });
    const hostId = field<number>(checkout, 'host_id');
    const invoiceId = field<number>(checkout, 'invoice_id');
    expect(checkout).toEqual({ invoice_id: invoiceId, host_ids: [hostId], host_id: hostId, order_id: expect.any(Number), amount: '124.00' });

    const before = await runOk(sandbox, 'upstream.check_order', { invoice_id: invoiceId });
    expect(before['invoice']).toMatchObject({ invoice_id: invoiceId, kind: 'purchase', status: 'unpaid', paid: false, total: '124.00', amount_paid: '0.00', host_ids: [hostId] });
    expect(before['order']).toMatchObject({ status: 'pending', invoice_id: invoiceId, host_ids: [hostId] });

    const pay = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    // The pay answer (1001) carries no total: amount null, never zero (the settle answer had it).
    expect(pay).toEqual({ invoice_id: invoiceId, paid: true, status: 'paid', checked: false, amount: null });
    expect(sandbox.control.credit()).toBe('9876.00');

    const statuses: string[] = [];
    for (let poll = 0; poll < 3; poll += 1) {
      const detail = await runOk(sandbox, 'upstream.host_detail', { host_id: hostId });
      statuses.push(field<HostDetail>(detail, 'host').status);
    }
    expect(statuses).toEqual(['pending', 'pending', 'active']);

    const detail = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: hostId } });
    const host = field<HostDetail>(detail.data, 'host');
    expect(host).toMatchObject({
      id: hostId,
      product_id: 101,
      hostname: 'web01.example.net',
      status: 'active',
      ip: expect.stringMatching(/^203\.0\.113\.\d+$/),
      assigned_ips: [expect.stringMatching(/^198\.51\.100\.\d+$/)],
      username: 'root',
      port: 22,
      os: 'Ubuntu 22.04 LTS 64位',
      billing_cycle: 'monthly',
      amount: '124.00',
      next_due_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      bandwidth: { limit_gb: 1000, used_gb: '0.00', extra_gb: 0 },
      has_password: true,
    });
    expect(detail.data['traffic_packages']).toHaveLength(3);
    expect(JSON.stringify(detail)).not.toContain(CLOUD_ORDER.password);
    expect(host).not.toHaveProperty('password');

    const ledger = sandbox.control.ledger();
    expect(ledger.purchases[downstream.token]).toBe(1);
    expect(ledger.settleAttempts[downstream.token]).toBe(1);
    expect(ledger.pays[String(invoiceId)]).toBe(1);
  });

  it('a probe after a committed settle returns the existing host and nothing is bought again', async () => {
    const downstream = newDownstream();
    const bought = await buyCloudHost(sandbox, downstream);
    const probe = await runOk(sandbox, 'upstream.purchase_probe', { downstream });
    expect(probe).toEqual({ existing: { host_id: bought.host_id, host_ids: [bought.host_id], invoice_id: bought.invoice_id, order_id: expect.any(Number), paid: true, amount: expect.stringMatching(/^\d+\.\d{2}$/) } });

    const cart = await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    expect(cart).toMatchObject({ cart_ready: false, existing: { host_id: bought.host_id, paid: true }, item_count: 0, amount: null });

    const again = await runOk(sandbox, 'upstream.purchase_checkout', { downstream });
    expect(again).toMatchObject({ invoice_id: bought.invoice_id, host_ids: [bought.host_id] });
    const repay = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: bought.invoice_id });
    expect(repay).toMatchObject({ paid: true, status: 'paid' });

    const ledger = sandbox.control.ledger();
    expect(ledger.purchases[downstream.token]).toBe(1);
    expect(ledger.settleAttempts[downstream.token]).toBe(2);
    expect(ledger.pays[String(bought.invoice_id)]).toBe(1);
  });

  it('a settle committed upstream but answered with a timeout is ambiguous, and the probe finds the order', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    sandbox.control.failNext(1, 'timeout', { path: '/cart/settle', afterCommit: true });
    const checkout = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream }, config: { timeout_ms: 400 } });
    expect(checkout).toMatchObject({ success: false, data: { error_kind: 'ambiguous', error_code: 'timeout' } });
    expect(checkout.message).toBe('上游请求超时，处理结果未知，请先核对订单再重试');

    const probe = await runOk(sandbox, 'upstream.purchase_probe', { downstream });
    const existing = field<{ host_id: number; invoice_id: number; paid: boolean }>(probe, 'existing');
    expect(existing).toMatchObject({ host_id: expect.any(Number), invoice_id: expect.any(Number), paid: false });
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: existing.invoice_id });
    expect(sandbox.control.ledger().purchases[downstream.token]).toBe(1);
    expect(sandbox.control.ledger().settleAttempts[downstream.token]).toBe(1);
  });

  it('a settle committed upstream but answered with an HTML 500 is ambiguous too', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    sandbox.control.failNext(1, 'html500', { path: '/cart/settle', afterCommit: true });
    const checkout = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream } });
    expect(checkout).toMatchObject({ success: false, data: { error_kind: 'ambiguous', error_code: 'upstream_unavailable' } });
    expect(checkout.message).toBe('上游未返回明确结果，处理结果未知，请先核对订单再重试');
    expect(JSON.stringify(checkout.data)).not.toContain('<html');
    const probe = await runOk(sandbox, 'upstream.purchase_probe', { downstream });
    expect(probe['existing']).not.toBeNull();
    expect(sandbox.control.ledger().purchases[downstream.token]).toBe(1);
  });

  it('a settle that never reached the order (HTML 500 before) leaves nothing to find, and buying again buys once', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    sandbox.control.failNext(1, 'html500', { path: '/cart/settle' });
    const checkout = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream } });
    expect(checkout.data).toMatchObject({ error_kind: 'ambiguous', error_code: 'upstream_unavailable' });
    expect(await runOk(sandbox, 'upstream.purchase_probe', { downstream })).toEqual({ existing: null });
    await buyCloudHost(sandbox, downstream);
    expect(sandbox.control.ledger().purchases[downstream.token]).toBe(1);
  });

  it('a payment committed upstream but answered with a timeout is ambiguous; check_order shows it paid and a repeat takes nothing', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    const checkout = await runOk(sandbox, 'upstream.purchase_checkout', { downstream });
    const invoiceId = field<number>(checkout, 'invoice_id');
    sandbox.control.failNext(1, 'timeout', { path: '/pay', afterCommit: true });
    const pay = await runFinance(sandbox, 'upstream.invoice_pay', { payload: { invoice_id: invoiceId }, config: { timeout_ms: 400 } });
    expect(pay).toMatchObject({ success: false, data: { error_kind: 'ambiguous', error_code: 'timeout' } });

    const check = await runOk(sandbox, 'upstream.check_order', { invoice_id: invoiceId });
    expect(check['invoice']).toMatchObject({ invoice_id: invoiceId, status: 'paid', paid: true, amount_paid: '124.00', paid_at: expect.any(String) });
    expect(check['order']).toMatchObject({ status: 'active' });
    const repeat = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    expect(repeat).toMatchObject({ paid: true, status: 'paid' });
    expect(sandbox.control.ledger().pays[String(invoiceId)]).toBe(1);
  });

  it('a payment answered with an HTML 500 after committing is ambiguous', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    const invoiceId = field<number>(await runOk(sandbox, 'upstream.purchase_checkout', { downstream }), 'invoice_id');
    sandbox.control.failNext(1, 'html500', { path: '/pay', afterCommit: true });
    const pay = await runFinance(sandbox, 'upstream.invoice_pay', { payload: { invoice_id: invoiceId } });
    expect(pay.data).toMatchObject({ error_kind: 'ambiguous', error_code: 'upstream_unavailable' });
    const check = await runOk(sandbox, 'upstream.check_order', { invoice_id: invoiceId });
    expect(check['invoice']).toMatchObject({ paid: true });
    expect(sandbox.control.ledger().pays[String(invoiceId)]).toBe(1);
  });

  it('detects a partial payment behind a plain 200 and pays the rest on the next call', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    const invoiceId = field<number>(await runOk(sandbox, 'upstream.purchase_checkout', { downstream }), 'invoice_id');
    sandbox.control.partialPayments(1);
    const partial = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    expect(partial).toEqual({ invoice_id: invoiceId, paid: false, status: 'partially_paid', checked: true, amount: '124.00' });
    const check = await runOk(sandbox, 'upstream.check_order', { invoice_id: invoiceId });
    expect(check['invoice']).toMatchObject({ status: 'partially_paid', total: '124.00', amount_paid: '62.00' });
    const rest = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    expect(rest).toMatchObject({ paid: true, status: 'paid' });
    expect(sandbox.control.ledger().pays[String(invoiceId)]).toBe(2);
    expect(sandbox.control.invoice(invoiceId)).toMatchObject({ status: 'Paid', credit: '124.00' });
  });

  it('a supplier balance too low is permanent (supplier_balance_insufficient) and takes nothing', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    const invoiceId = field<number>(await runOk(sandbox, 'upstream.purchase_checkout', { downstream }), 'invoice_id');
    sandbox.control.setCredit('100.00');
    const pay = await runFinance(sandbox, 'upstream.invoice_pay', { payload: { invoice_id: invoiceId } });
    expect(pay).toMatchObject({
      success: false,
      message: '上游供应商账户余额不足，请充值后重试',
      data: { error_kind: 'permanent', error_code: 'supplier_balance_insufficient', upstream_status: 400 },
    });
    expect(pay.diagnostics).toMatchObject({ upstream_message: '余额不足，请先充值' });
    expect(sandbox.control.credit()).toBe('100.00');
    expect(sandbox.control.ledger().pays[String(invoiceId)]).toBeUndefined();
  });

  it('out of stock is permanent (out_of_stock) and nothing is ordered', async () => {
    sandbox.control.setStock(101, 0);
    const downstream = newDownstream();
    const cart = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER } });
    expect(cart).toMatchObject({ success: false, message: '上游商品库存不足', data: { error_kind: 'permanent', error_code: 'out_of_stock', upstream_status: 400 } });
    const checkout = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream } });
    expect(checkout).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'cart_empty' } });
    expect(sandbox.control.ledger().purchases[downstream.token]).toBeUndefined();
  });

  it('a product gone upstream is permanent (product_gone); bad options are validation failures', async () => {
    const downstream = newDownstream();
    const gone = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER, product_id: 999 } });
    expect(gone).toMatchObject({ success: false, message: '上游商品不存在或已下架', data: { error_kind: 'permanent', error_code: 'product_gone', upstream_status: 406 } });
    const badOption = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER, config: { '10101': 999 } } });
    expect(badOption).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'validation_failed', upstream_status: 406 } });
    const badCycle = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER, billing_period: 'biennially' } });
    expect(badCycle.data).toMatchObject({ error_code: 'validation_failed' });
  });

  it('refuses bad payloads before calling the upstream', async () => {
    sandbox.control.resetCounters();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['upstream.purchase_probe', {}, '参数错误：downstream 必须为对象'],
      ['upstream.purchase_probe', { downstream: { ...newDownstream(), token: 'short' } }, '参数错误：downstream.token 必须为 32 位字母或数字'],
      ['upstream.purchase_probe', { downstream: { ...newDownstream(), url: 'ftp://x' } }, '参数错误：downstream.url 必须为 HTTP(S) 地址'],
      ['upstream.purchase_checkout', { downstream: { ...newDownstream(), service_id: 0 } }, '参数错误：downstream.service_id 必须为正整数'],
      ['upstream.purchase_cart', { downstream: newDownstream(), ...CLOUD_ORDER, billing_period: 'weekly' }, '参数错误：billing_period 必须为 monthly、quarterly、semiannually、annually、biennially、triennially、onetime 之一'],
      ['upstream.purchase_cart', { downstream: newDownstream(), ...CLOUD_ORDER, config: { cpu: 2 } }, '参数错误：config.cpu 必须为非负整数（子选项 ID 或数量）'],
      ['upstream.purchase_cart', { downstream: newDownstream(), ...CLOUD_ORDER, hostname: 'bad host!' }, '参数错误：hostname 格式不正确'],
      ['upstream.invoice_pay', { invoice_id: -1 }, '参数错误：invoice_id 必须为正整数'],
      ['upstream.check_order', { invoice_id: 1, host_id: 2 }, '参数错误：invoice_id 与 host_id 需且只能提供一个正整数'],
      ['upstream.check_order', {}, '参数错误：invoice_id 与 host_id 需且只能提供一个正整数'],
    ];
    for (const [action, payload, message] of cases) {
      const result = await runFinance(sandbox, action, { payload });
      expect(result, action).toMatchObject({ success: false, message, data: { error_kind: 'permanent', error_code: 'invalid_input' } });
    }
    expect(sandbox.control.counters().paths).toEqual({});
  });

  it('a token rejected on a cart call logs in again once and the call goes through', async () => {
    await runOk(sandbox, 'upstream.credit', {});
    sandbox.control.resetCounters();
    sandbox.control.failNext(1, 'token_rejected', { path: '/cart/add_to_shop' });
    const downstream = newDownstream();
    const cart = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER } });
    expect(cart.success).toBe(true);
    expect(cart.diagnostics).toMatchObject({ session: { logins: 1, reloginsAfterRejection: 1 } });
    expect(sandbox.control.counters()).toMatchObject({ logins: 1, rejectedTokens: 1, paths: { '/cart/add_to_shop': 2, '/cart/clear': 1 } });
  });

  it('a token rejected again after the re-login is transient (token_rejected)', async () => {
    sandbox.control.failNext(2, 'token_rejected', { path: '/cart/settle' });
    const result = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream: newDownstream() } });
    expect(result).toMatchObject({ success: false, data: { error_kind: 'transient', error_code: 'token_rejected', upstream_status: 405 } });
    expect(result.diagnostics).toMatchObject({ session: { reloginsAfterRejection: 1 } });
  });

  it('HTML 500s and maintenance on the probe and the cart are transient (nothing was bought)', async () => {
    const downstream = newDownstream();
    sandbox.control.failNext(1, 'html500', { path: '/cart/clear' });
    const probe = await runFinance(sandbox, 'upstream.purchase_probe', { payload: { downstream } });
    expect(probe.data).toMatchObject({ error_kind: 'transient', error_code: 'upstream_unavailable' });
    sandbox.control.failNext(1, 'maintenance', { path: '/cart/add_to_shop' });
    const cart = await runFinance(sandbox, 'upstream.purchase_cart', { payload: { downstream, ...CLOUD_ORDER } });
    expect(cart.data).toMatchObject({ error_kind: 'transient', error_code: 'upstream_maintenance', upstream_status: 503 });
    sandbox.control.failNext(1, 'timeout', { path: '/check_order' });
    const check = await runFinance(sandbox, 'upstream.check_order', { payload: { host_id: 5001 }, config: { timeout_ms: 300 } });
    expect(check.data).toMatchObject({ error_kind: 'transient', error_code: 'timeout' });
  });

  it('maintenance answered on a settle is transient, not ambiguous (the upstream said it did nothing)', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    sandbox.control.failNext(1, 'maintenance', { path: '/cart/settle' });
    const checkout = await runFinance(sandbox, 'upstream.purchase_checkout', { payload: { downstream } });
    expect(checkout.data).toMatchObject({ error_kind: 'transient', error_code: 'upstream_maintenance' });
    expect(sandbox.control.ledger().purchases[downstream.token]).toBeUndefined();
  });

  it('a retried cart call does not put a second line into the cart', async () => {
    const downstream = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    const again = await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
    expect(again).toMatchObject({ cart_ready: true, item_count: 1 });
    const checkout = await runOk(sandbox, 'upstream.purchase_checkout', { downstream });
    expect(checkout['host_ids']).toHaveLength(1);
  });
});
