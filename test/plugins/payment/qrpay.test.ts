import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../../plugins/payment/qrpay/index.js';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../plugins/runtime/contract.js';
import { startQrpaySandbox, type QrpaySandbox } from '../../../sandbox/qrpay/server.js';
import { eventually } from '../../helpers/wait.js';
import { TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from './qrpay-test-keys.js';

const APP_ID = '2021000000000001';

type Received = { fields: Record<string, string>; answered: string };

/** A tiny notification receiver: answers `success` only from the 2nd delivery of a notify_id on. */
class Receiver {
  readonly received: Received[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        const seen = this.received.filter((r) => r.fields.notify_id === fields.notify_id).length;
        const answered = seen >= 1 ? 'success' : 'fail';
        this.received.push({ fields, answered });
        res.writeHead(200, { 'content-type': 'text/plain' }).end(answered);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  for(outTradeNo: string): Received[] {
    return this.received.filter((r) => r.fields.out_trade_no === outTradeNo);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let sandbox: QrpaySandbox;
const receiver = new Receiver();

function config(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    app_id: APP_ID,
    gateway_url: sandbox.url,
    merchant_private_key: TEST_MERCHANT_PRIVATE_KEY_PEM,
    gateway_public_key: sandbox.gatewayPublicKeyPem,
    timeout_ms: 5000,
    ...overrides,
  };
}

function run(action: string, payload: Record<string, unknown>, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<PluginExecuteResult> {
  const input: PluginExecuteInput = {
    domain: 'payment',
    slug: 'qrpay',
    key: 'qrpay',
    action,
    payload,
    config: options.config ?? config(),
    context: {
      traceId: randomBytes(8).toString('hex'),
      actor: SYSTEM_ACTOR,
      signal: options.signal ?? new AbortController().signal,
      urls: { publicBaseUrl: receiver.url },
    },
  };
  return execute(input);
}

function tradeNo(): string {
  return `P${Date.now()}${randomBytes(4).toString('hex')}`;
}

/** A failure shown to users: Chinese, and none of the gateway's own words. */
function expectChineseFailure(result: PluginExecuteResult, message: string | RegExp): void {
  expect(result.success).toBe(false);
  if (typeof message === 'string') expect(result.message).toBe(message);
  else expect(result.message).toMatch(message);
  expect(result.message).toMatch(/[\u4e00-\u9fff]/);
  expect(result.message).not.toMatch(/Business|Failed|system error|Internal Server|<html|ACQ\.|isv\.|Success/i);
}

async function precreate(amount = '88.80', notify = true): Promise<{ outTradeNo: string; qrCode: string }> {
  const outTradeNo = tradeNo();
  const payload: Record<string, unknown> = { out_trade_no: outTradeNo, total_amount: amount, subject: '云服务器 续费 1 个月' };
  if (notify) payload.notify_url = `${receiver.url}/notify`;
  const result = await run('payment.precreate', payload);
  expect(result).toMatchObject({ success: true, action: 'payment.precreate', data: { out_trade_no: outTradeNo } });
  return { outTradeNo, qrCode: String(result.data.qr_code) };
}

async function buyerPays(qrCode: string): Promise<void> {
  const res = await fetch(`${qrCode}/pay`, { method: 'POST', headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
}

async function paidTrade(amount = '100.00'): Promise<string> {
  const { outTradeNo, qrCode } = await precreate(amount, false);
  await buyerPays(qrCode);
  return outTradeNo;
}

beforeAll(async () => {
  await receiver.start();
  sandbox = await startQrpaySandbox({ merchantPublicKeyPem: TEST_MERCHANT_PUBLIC_KEY_PEM, appId: APP_ID, notifyRetryDelaysMs: [50, 50, 50] });
});

afterAll(async () => {
  await sandbox?.stop();
  await receiver.stop();
});

describe('payment/qrpay plugin against the sandbox gateway', () => {
  it('passes the health check with a signed "trade does not exist" answer', async () => {
    const result = await run('health_check', {});
    expect(result).toMatchObject({ success: true, action: 'health_check', message: '支付网关连接正常', data: { healthy: true } });
  });

  it('takes a payment: precreate, not found before the scan, buyer pays, notification retried until success, paid on query', async () => {
    const { outTradeNo, qrCode } = await precreate('88.80');
    expect(qrCode).toBe(`${sandbox.baseUrl}/scan/${outTradeNo}`);

    const before = await run('payment.query', { out_trade_no: outTradeNo });
    expect(before).toMatchObject({
      success: true,
      data: { out_trade_no: outTradeNo, exists: false, trade_status: 'NOT_FOUND', paid: false, pending: true, trade_no: null },
    });

    const page = await fetch(qrCode);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('88.80');
    expect(html).toContain(`/scan/${outTradeNo}/pay`);
    const waiting = await run('payment.query', { out_trade_no: outTradeNo });
    expect(waiting.data).toMatchObject({ exists: true, trade_status: 'WAIT_BUYER_PAY', paid: false, pending: true, total_amount: '88.80' });

    await buyerPays(qrCode);
    const deliveries = await eventually(async () => (receiver.for(outTradeNo).some((r) => r.answered === 'success') ? receiver.for(outTradeNo) : null));
    expect(deliveries.map((d) => d.answered)).toEqual(['fail', 'success']);
    expect(deliveries[0]?.fields).toEqual(deliveries[1]?.fields);
    await sandbox.control.idle();
    expect(sandbox.control.stats().notifications.by_out_trade_no[outTradeNo]).toEqual({ sent: 2, acknowledged: 1 });

    const paid = await run('payment.query', { out_trade_no: outTradeNo });
    expect(paid).toMatchObject({
      success: true,
      message: '支付成功',
      data: { exists: true, trade_status: 'TRADE_SUCCESS', paid: true, pending: false, total_amount: '88.80', buyer_pay_amount: '88.80' },
    });
    expect(paid.data.trade_no).toEqual(expect.any(String));
    expect(paid.data.gmt_payment).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    const notification = deliveries[0]?.fields ?? {};
    expect(notification).toMatchObject({ notify_type: 'trade_status_sync', app_id: APP_ID, sign_type: 'RSA2', total_amount: '88.80' });
    const verified = await run('payment.verify_notify', notification);
    expect(verified).toMatchObject({
      success: true,
      data: {
        verified: true,
        out_trade_no: outTradeNo,
        trade_no: paid.data.trade_no,
        trade_status: 'TRADE_SUCCESS',
        paid: true,
        total_amount: '88.80',
        buyer_pay_amount: '88.80',
        gmt_payment: notification.gmt_payment,
      },
    });
    // The fields may also come wrapped as `{ fields }`.
    expect((await run('payment.verify_notify', { fields: notification })).data.verified).toBe(true);
  });

  it('uses the platform notify route when the payload gives no notify_url', async () => {
    const { outTradeNo } = await precreate('1.00', false);
    expect(sandbox.control.trade(outTradeNo)?.notifyUrl).toBe(`${receiver.url}/api/v2/client/payment/qrpay/notify`);
  });

  it('rejects forged and tampered notifications and a foreign app_id', async () => {
    const { outTradeNo, qrCode } = await precreate('66.00');
    const forged = await sandbox.control.sendForgedNotification(outTradeNo);
    expect(forged.attempts).toBe(1);
    const forgedResult = await run('payment.verify_notify', forged.fields);
    expectChineseFailure(forgedResult, '支付通知签名校验失败');
    expect(forgedResult.data).toMatchObject({ verified: false, reason: 'bad_signature' });

    await buyerPays(qrCode);
    const tampered = await sandbox.control.sendTamperedNotification(outTradeNo, { totalAmount: '0.01' });
    expect(tampered.fields.total_amount).toBe('0.01');
    const tamperedResult = await run('payment.verify_notify', tampered.fields);
    expectChineseFailure(tamperedResult, '支付通知签名校验失败');
    expect(tamperedResult.data).toMatchObject({ verified: false, reason: 'bad_signature' });

    const genuine = await eventually(async () => receiver.for(outTradeNo).find((r) => r.fields.notify_id !== forged.fields.notify_id && r.fields.notify_id !== tampered.fields.notify_id) ?? null);
    expect((await run('payment.verify_notify', genuine.fields)).success).toBe(true);
    const foreign = await run('payment.verify_notify', genuine.fields, { config: config({ app_id: '2021999999999999' }) });
    expectChineseFailure(foreign, '支付通知的应用 ID 与配置不一致');
    expect(foreign.data).toMatchObject({ verified: false, reason: 'app_id_mismatch' });
    const unsigned = await run('payment.verify_notify', { ...genuine.fields, sign: '' });
    expect(unsigned.data).toMatchObject({ verified: false, reason: 'bad_signature' });
    await sandbox.control.idle();
  });

  it('delivers duplicate notifications that all verify', async () => {
    sandbox.control.setNotificationCopies(2);
    try {
      const { outTradeNo, qrCode } = await precreate('12.34');
      await buyerPays(qrCode);
      await eventually(async () => (receiver.for(outTradeNo).filter((r) => r.answered === 'success').length >= 2 ? true : null));
      await sandbox.control.idle();
      const all = receiver.for(outTradeNo);
      expect(all.map((r) => r.answered)).toEqual(['fail', 'success', 'success']);
      expect(new Set(all.map((r) => r.fields.notify_id)).size).toBe(1);
      for (const r of all) expect((await run('payment.verify_notify', r.fields)).data.verified).toBe(true);
    } finally {
      sandbox.control.setNotificationCopies(1);
    }
  });

  it('refunds once per out_request_no, keeps the cumulative refund fee and refuses more than was paid', async () => {
    const outTradeNo = await paidTrade('100.00');
    const requestNo = `R${outTradeNo}`;
    const first = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '30.00', out_request_no: requestNo });
    expect(first).toMatchObject({ success: true, message: '退款成功', data: { out_request_no: requestNo, fund_change: true, refund_fee: '30.00', refund_amount: '30.00' } });
    const repeat = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '30.00', out_request_no: requestNo });
    expect(repeat).toMatchObject({ success: true, data: { fund_change: false, refund_fee: '30.00' } });
    const stats = sandbox.control.stats();
    expect(stats.refunds.executed_by_out_request_no[requestNo]).toBe(1);
    expect(stats.refunds.requests_by_out_request_no[requestNo]).toBe(2);

    const second = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '50.55', out_request_no: `${requestNo}-2` });
    expect(second.data).toMatchObject({ fund_change: true, refund_fee: '80.55' });

    const tooMuch = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '19.46', out_request_no: `${requestNo}-3` });
    expectChineseFailure(tooMuch, '退款失败：退款金额超过可退金额');
    expect(tooMuch.data).toMatchObject({ error_code: 'refund_exceeds_paid', retryable: false });
    expect(tooMuch.diagnostics).toMatchObject({ sub_code: 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL' });
    expect(sandbox.control.stats().refunds.executed_by_out_request_no[`${requestNo}-3`]).toBe(0);

    const conflicting = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '1.00', out_request_no: requestNo });
    expectChineseFailure(conflicting, '退款失败：退款请求号已用于参数不同的退款');

    const rest = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '19.45', out_request_no: `${requestNo}-4` });
    expect(rest.data).toMatchObject({ fund_change: true, refund_fee: '100.00' });
  });

  it('refuses to refund a trade that was not paid', async () => {
    const { outTradeNo, qrCode } = await precreate('5.00', false);
    await fetch(qrCode);
    const result = await run('payment.refund', { out_trade_no: outTradeNo, refund_amount: '5.00', out_request_no: `R${outTradeNo}` });
    expectChineseFailure(result, '退款失败：交易当前状态不允许此操作');
  });

  it('closes unpaid trades so that they cannot be paid, and refuses to close a paid one', async () => {
    const { outTradeNo, qrCode } = await precreate('9.90', false);
    const closed = await run('payment.close', { out_trade_no: outTradeNo });
    expect(closed).toMatchObject({ success: true, data: { out_trade_no: outTradeNo, closed: true, trade_status: 'TRADE_CLOSED' } });
    const late = await fetch(`${qrCode}/pay`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(late.status).toBe(409);
    const query = await run('payment.query', { out_trade_no: outTradeNo });
    expect(query.data).toMatchObject({ trade_status: 'TRADE_CLOSED', paid: false, closed: true });

    const unknown = await run('payment.close', { out_trade_no: tradeNo() });
    expect(unknown).toMatchObject({ success: true, data: { closed: true, trade_status: 'NOT_FOUND' } });

    const paid = await paidTrade('3.00');
    const refused = await run('payment.close', { out_trade_no: paid });
    expectChineseFailure(refused, '关闭交易失败：交易当前状态不允许此操作');
    expect(refused.data).toMatchObject({ error_code: 'trade_status_error' });
  });

  it('turns injected business failures and HTTP 500 pages into Chinese messages, raw text only in diagnostics', async () => {
    const { outTradeNo } = await precreate('2.00', false);
    sandbox.control.failNext('qrpay.trade.query', 1, { subMsg: 'system error, please retry later' });
    const business = await run('payment.query', { out_trade_no: outTradeNo });
    expectChineseFailure(business, '查询支付状态失败：支付网关系统繁忙，请稍后重试');
    expect(business.data).toMatchObject({ error_code: 'gateway_busy', retryable: true });
    expect(business.diagnostics).toMatchObject({ code: '40004', sub_code: 'ACQ.SYSTEM_ERROR', sub_msg: 'system error, please retry later' });

    sandbox.control.failNext('qrpay.trade.query', 1, { mode: 'http500' });
    const http500 = await run('payment.query', { out_trade_no: outTradeNo });
    expectChineseFailure(http500, '查询支付状态失败：支付网关暂时不可用，请稍后重试');
    expect(http500.data).toMatchObject({ error_code: 'gateway_http_error', retryable: true });
    expect(http500.diagnostics).toMatchObject({ http_status: 500 });

    sandbox.control.failNext('qrpay.trade.precreate', 1, { code: '40004', subCode: 'ACQ.SOMETHING_NEW', subMsg: 'brand new failure' });
    const unknownSub = await run('payment.precreate', { out_trade_no: tradeNo(), total_amount: '1.00', subject: '测试' });
    expectChineseFailure(unknownSub, '创建支付二维码失败：支付网关业务处理失败');

    // Switches are one-shot: the next call goes through.
    expect((await run('payment.query', { out_trade_no: outTradeNo })).success).toBe(true);
  });

  it('takes the same switches over HTTP under /__control', async () => {
    const before = sandbox.control.stats().calls['qrpay.trade.precreate'] ?? 0;
    const set = await fetch(`${sandbox.baseUrl}/__control/fail`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'qrpay.trade.precreate', count: 1, mode: 'http500' }),
    });
    expect(set.status).toBe(200);
    const result = await run('payment.precreate', { out_trade_no: tradeNo(), total_amount: '1.00', subject: '测试' });
    expectChineseFailure(result, '创建支付二维码失败：支付网关暂时不可用，请稍后重试');
    const stats = (await (await fetch(`${sandbox.baseUrl}/__control/stats`)).json()) as { calls: Record<string, number>; failures_injected: number };
    expect(stats.calls['qrpay.trade.precreate']).toBe(before + 1);
    expect(stats.failures_injected).toBeGreaterThan(0);
  });

  it('rejects a gateway answer whose signature does not match', async () => {
    const { outTradeNo } = await precreate('7.00', false);
    sandbox.control.tamperNextAnswers('qrpay.trade.query', 1);
    const tampered = await run('payment.query', { out_trade_no: outTradeNo });
    expectChineseFailure(tampered, '查询支付状态失败：支付网关响应签名校验失败');
    expect(tampered.data).toMatchObject({ error_code: 'gateway_signature_invalid', retryable: false });

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrongKey = other.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const health = await run('health_check', {}, { config: config({ gateway_public_key: wrongKey }) });
    expectChineseFailure(health, '支付网关连通性检查失败：支付网关响应签名校验失败');
    expect(health.data).toMatchObject({ healthy: false });

    const wrongMerchant = other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const rejected = await run('health_check', {}, { config: config({ merchant_private_key: wrongMerchant }) });
    expectChineseFailure(rejected, /^支付网关连通性检查失败：支付网关验签失败/);
    expect(rejected.data).toMatchObject({ error_code: 'merchant_signature_rejected' });
  });

  it('times out slow answers and honours the invocation signal', async () => {
    sandbox.control.setDelay(1000, 'qrpay.trade.query');
    try {
      const slow = await run('payment.query', { out_trade_no: tradeNo() }, { config: config({ timeout_ms: 150 }) });
      expectChineseFailure(slow, '查询支付状态失败：支付网关请求超时，请稍后重试');
      expect(slow.data).toMatchObject({ error_code: 'gateway_timeout', retryable: true });

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const cancelled = await run('payment.query', { out_trade_no: tradeNo() }, { signal: controller.signal });
      expectChineseFailure(cancelled, '查询支付状态失败：支付网关请求已取消（插件调用超时）');
    } finally {
      sandbox.control.setDelay(0, 'qrpay.trade.query');
    }
  });

  it('refuses bad payloads and incomplete configuration before calling the gateway', async () => {
    const calls = sandbox.control.stats().calls['qrpay.trade.precreate'] ?? 0;
    const badAmount = await run('payment.precreate', { out_trade_no: tradeNo(), total_amount: '1.5', subject: '测试' });
    expectChineseFailure(badAmount, '支付金额无效（以元为单位、两位小数且大于 0）');
    expect(badAmount.data).toMatchObject({ error_code: 'invalid_payload' });
    const longNo = await run('payment.precreate', { out_trade_no: 'x'.repeat(65), total_amount: '1.50', subject: '测试' });
    expectChineseFailure(longNo, '商户订单号无效（最多 64 个可见 ASCII 字符）');
    const noRequestNo = await run('payment.refund', { out_trade_no: tradeNo(), refund_amount: '1.00' });
    expectChineseFailure(noRequestNo, '缺少退款请求号');
    expect(sandbox.control.stats().calls['qrpay.trade.precreate'] ?? 0).toBe(calls);

    const noAppId = await run('payment.query', { out_trade_no: tradeNo() }, { config: config({ app_id: '' }) });
    expectChineseFailure(noAppId, '支付插件未配置应用 ID');
    const badKey = await run('payment.query', { out_trade_no: tradeNo() }, { config: config({ merchant_private_key: 'not a key' }) });
    expectChineseFailure(badKey, '商户私钥未配置或格式无效（需要 RSA 私钥）');
    expect(JSON.stringify(badKey)).not.toContain('not a key');
    const unknownAction = await run('payment.transfer', {});
    expectChineseFailure(unknownAction, '扫码支付插件不支持该操作');
  });
});
