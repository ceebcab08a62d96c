import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as rawSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QrpayConfig } from '../../plugins/payment/qrpay/config.js';
import { buildRequestParams } from '../../plugins/payment/qrpay/gateway-client.js';
import { buildSignString, extractJsonMember, sign, verify } from '../../plugins/payment/qrpay/signing.js';
import { startQrpaySandbox, type QrpaySandbox } from '../../sandbox/qrpay/server.js';
import type { QrpayStats } from '../../sandbox/qrpay/types.js';
import { TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from '../plugins/payment/qrpay-test-keys.js';
import { eventually } from '../helpers/wait.js';

const APP_ID = '2021000000000002';
let sandbox: QrpaySandbox;
let counter = 0;

function tradeNo(): string {
  counter += 1;
  return `S${Date.now()}${counter}`;
}

function signedParams(method: string, biz: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const params: Record<string, string> = {
    app_id: APP_ID,
    method,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: '2024-05-06 07:08:09',
    version: '1.0',
    biz_content: JSON.stringify(biz),
    ...extra,
  };
  return { ...params, sign: sign(buildSignString(params), TEST_MERCHANT_PRIVATE_KEY_PEM) };
}

async function call(params: Record<string, string>, member: string): Promise<Record<string, string>> {
  const res = await fetch(sandbox.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: new URLSearchParams(params).toString(),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  const text = await res.text();
  const memberText = extractJsonMember(text, member);
  expect(memberText).not.toBeNull();
  const signature = (JSON.parse(text) as { sign: string }).sign;
  expect(verify(memberText ?? '', signature, sandbox.gatewayPublicKeyPem)).toBe(true);
  return JSON.parse(memberText ?? '{}') as Record<string, string>;
}

async function control(path: string, body: unknown): Promise<Response> {
  return fetch(`${sandbox.baseUrl}/__control/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function listen(handler: (body: string) => string): Promise<{ server: Server; url: string; stop: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(handler(Buffer.concat(chunks).toString('utf8'))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
  return {
    server,
    url,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  sandbox = await startQrpaySandbox({ merchantPublicKeyPem: TEST_MERCHANT_PUBLIC_KEY_PEM, appId: APP_ID, notifyRetryDelaysMs: [30, 30] });
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('qrpay sandbox gateway', () => {
  it('listens on loopback and publishes its gateway endpoint and public key', () => {
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.url).toBe(`${sandbox.baseUrl}/gateway.do`);
    expect(sandbox.gatewayPublicKeyPem).toContain('BEGIN PUBLIC KEY');
  });

  it('refuses to listen anywhere but loopback', async () => {
    await expect(
      startQrpaySandbox({ merchantPublicKeyPem: TEST_MERCHANT_PUBLIC_KEY_PEM, appId: APP_ID, host: '0.0.0.0' as '127.0.0.1' }),
    ).rejects.toThrow(/loopback/);
  });

  it('answers signed, with "trade does not exist" before the scan and the trade after it', async () => {
    const no = tradeNo();
    const created = await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '10.00', subject: '测试' }), 'qrpay_trade_precreate_response');
    expect(created).toMatchObject({ code: '10000', out_trade_no: no, qr_code: `${sandbox.baseUrl}/scan/${no}` });
    const again = await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '10.00', subject: '测试' }), 'qrpay_trade_precreate_response');
    expect(again.qr_code).toBe(created.qr_code);
    const changed = await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '11.00', subject: '测试' }), 'qrpay_trade_precreate_response');
    expect(changed).toMatchObject({ code: '40004', sub_code: 'ACQ.CONTEXT_INCONSISTENT' });

    const missing = await call(signedParams('qrpay.trade.query', { out_trade_no: no }), 'qrpay_trade_query_response');
    expect(missing).toMatchObject({ code: '40004', sub_code: 'ACQ.TRADE_NOT_EXIST' });

    const page = await fetch(`${sandbox.baseUrl}/scan/${no}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const waiting = await call(signedParams('qrpay.trade.query', { out_trade_no: no }), 'qrpay_trade_query_response');
    expect(waiting).toMatchObject({ code: '10000', trade_status: 'WAIT_BUYER_PAY', total_amount: '10.00', buyer_pay_amount: '0.00' });
    expect(waiting.trade_no).toMatch(/^\d+$/);

    const pay = await fetch(`${sandbox.baseUrl}/scan/${no}/pay`, { method: 'POST' });
    expect(pay.status).toBe(200);
    expect(await pay.text()).toContain('支付成功');
    const paid = await call(signedParams('qrpay.trade.query', { out_trade_no: no }), 'qrpay_trade_query_response');
    expect(paid).toMatchObject({ trade_status: 'TRADE_SUCCESS', trade_no: waiting.trade_no, buyer_pay_amount: '10.00' });
    const twice = await fetch(`${sandbox.baseUrl}/scan/${no}/pay`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(twice.status).toBe(409);
    expect((await fetch(`${sandbox.baseUrl}/scan/unknown-trade`)).status).toBe(404);
  });

  it('rejects bad request signatures, unknown app ids and unknown methods with signed answers', async () => {
    const good = signedParams('qrpay.trade.query', { out_trade_no: 'X1' });
    const badSignature = await call({ ...good, biz_content: '{"out_trade_no":"X2"}' }, 'qrpay_trade_query_response');
    expect(badSignature).toMatchObject({ code: '40002', sub_code: 'isv.invalid-signature' });
    const unsigned = await call({ ...good, sign: '' }, 'qrpay_trade_query_response');
    expect(unsigned).toMatchObject({ code: '40001', sub_code: 'isv.missing-signature' });
    const otherApp = await call(signedParams('qrpay.trade.query', { out_trade_no: 'X1' }, { app_id: '2021000000009999' }), 'qrpay_trade_query_response');
    expect(otherApp).toMatchObject({ code: '40002', sub_code: 'isv.invalid-app-id' });
    const unknown = await call(signedParams('qrpay.trade.pay', { out_trade_no: 'X1' }), 'error_response');
    expect(unknown).toMatchObject({ code: '40002', sub_code: 'isv.invalid-method' });
  });

  it('checks plugin request signatures with its own rules and refuses a wrong one', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const plugin: QrpayConfig = {
      appId: APP_ID,
      gatewayUrl: sandbox.url,
      merchantPrivateKey: createPrivateKey(TEST_MERCHANT_PRIVATE_KEY_PEM),
      gatewayPublicKey: createPublicKey(sandbox.gatewayPublicKeyPem),
      timeoutMs: 5000,
    };
    const request = { method: 'qrpay.trade.query' as const, bizContent: { out_trade_no: 'W1' } };
    const member = 'qrpay_trade_query_response';

    // The plugin's own request, as it sends it: the gateway agrees.
    const genuine = buildRequestParams(plugin, request);
    expect(await call(genuine, member)).toMatchObject({ code: '40004', sub_code: 'ACQ.TRADE_NOT_EXIST' });

    // Signed by a merchant key the gateway does not know, or changed after signing.
    const foreignKey = buildRequestParams({ ...plugin, merchantPrivateKey: other.privateKey }, request);
    expect(await call(foreignKey, member)).toMatchObject({ code: '40002', sub_code: 'isv.invalid-signature' });
    const changed = { ...genuine, biz_content: JSON.stringify({ out_trade_no: 'W2' }) };
    expect(await call(changed, member)).toMatchObject({ code: '40002', sub_code: 'isv.invalid-signature' });

    // Signed with the right key over a string built by wrong rules: what a signing bug in the
    // plugin would produce. A gateway that borrowed the plugin's rules would accept them.
    const { sign: _ignored, ...unsigned } = genuine;
    const sorted = Object.keys(unsigned).sort();
    const wrongRules: Record<string, string> = {
      'sign_type left out': sorted.filter((k) => k !== 'sign_type').map((k) => `${k}=${unsigned[k]}`).join('&'),
      'values URL-encoded': sorted.map((k) => `${k}=${encodeURIComponent(unsigned[k] ?? '')}`).join('&'),
      'keys unsorted': Object.keys(unsigned).map((k) => `${k}=${unsigned[k]}`).join('&'),
    };
    for (const [rule, content] of Object.entries(wrongRules)) {
      const signature = rawSign('sha256', Buffer.from(content, 'utf8'), plugin.merchantPrivateKey).toString('base64');
      const answer = await call({ ...unsigned, sign: signature }, member);
      expect({ rule, sub_code: answer.sub_code }).toEqual({ rule, sub_code: 'isv.invalid-signature' });
    }
    // SHA-1 (RSA) instead of SHA-256 (RSA2) over the right string.
    const sha1 = rawSign('sha1', Buffer.from(sorted.map((k) => `${k}=${unsigned[k]}`).join('&'), 'utf8'), plugin.merchantPrivateKey).toString('base64');
    expect(await call({ ...unsigned, sign: sha1 }, member)).toMatchObject({ sub_code: 'isv.invalid-signature' });
  });

  it('notifies with retries, duplicates on request, and takes control switches over HTTP', async () => {
    let attempts = 0;
    const receiver = await listen(() => {
      attempts += 1;
      return attempts === 1 ? 'not yet' : 'success';
    });
    try {
      expect((await control('reset', {})).status).toBe(200);
      expect((await control('duplicate-notifications', { copies: 2 })).status).toBe(200);
      const no = tradeNo();
      await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '20.00', subject: '测试' }, { notify_url: receiver.url }), 'qrpay_trade_precreate_response');
      const paid = await control('pay', { out_trade_no: no });
      expect(await paid.json()).toMatchObject({ ok: true, outTradeNo: no, totalAmount: '20.00' });
      await sandbox.control.idle();
      const stats = (await (await fetch(`${sandbox.baseUrl}/__control/stats`)).json()) as QrpayStats;
      expect(stats.notifications).toMatchObject({ sent: 3, acknowledged: 2 });
      expect(stats.calls['qrpay.trade.precreate']).toBe(1);

      const forged = await control('forged-notification', { out_trade_no: no });
      expect(forged.status).toBe(200);
      const forgedDelivery = (await forged.json()) as { fields: Record<string, string>; attempts: number };
      expect(forgedDelivery.attempts).toBe(1);
      expect(verify(buildSignString(forgedDelivery.fields, { excludeSignType: true }), forgedDelivery.fields.sign ?? '', sandbox.gatewayPublicKeyPem)).toBe(false);

      const tampered = (await (await control('tampered-notification', { out_trade_no: no, total_amount: '0.02' })).json()) as { fields: Record<string, string> };
      expect(tampered.fields.total_amount).toBe('0.02');
      expect(verify(buildSignString(tampered.fields, { excludeSignType: true }), tampered.fields.sign ?? '', sandbox.gatewayPublicKeyPem)).toBe(false);
      const genuine: Record<string, string> = { ...tampered.fields, total_amount: '20.00', receipt_amount: '20.00', buyer_pay_amount: '20.00' };
      expect(verify(buildSignString(genuine, { excludeSignType: true }), genuine.sign ?? '', sandbox.gatewayPublicKeyPem)).toBe(true);

      expect((await control('fail', { method: 'qrpay.trade.close', count: 1, sub_code: 'ACQ.SYSTEM_ERROR' })).status).toBe(200);
      const failed = await call(signedParams('qrpay.trade.close', { out_trade_no: no }), 'qrpay_trade_close_response');
      expect(failed).toMatchObject({ code: '40004', sub_code: 'ACQ.SYSTEM_ERROR' });
      expect((await control('fail', { method: 'qrpay.trade.close', count: 1, mode: 'http500' })).status).toBe(200);
      const html = await fetch(sandbox.url, { method: 'POST', body: new URLSearchParams(signedParams('qrpay.trade.close', { out_trade_no: no })) });
      expect(html.status).toBe(500);
      expect(await html.text()).toContain('<html>');
      expect((await control('fail', { method: 'nope', count: 1 })).status).toBe(400);

      const trade = (await (await fetch(`${sandbox.baseUrl}/__control/trades/${no}`)).json()) as { status: string };
      expect(trade.status).toBe('TRADE_SUCCESS');
    } finally {
      sandbox.control.reset();
      await receiver.stop();
    }
  });

  it('refunds idempotently per out_request_no', async () => {
    const no = tradeNo();
    await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '50.00', subject: '测试' }), 'qrpay_trade_precreate_response');
    sandbox.control.pay(no);
    const refund = signedParams('qrpay.trade.refund', { out_trade_no: no, refund_amount: '20.00', out_request_no: `${no}-r1` });
    const first = await call(refund, 'qrpay_trade_refund_response');
    const second = await call(refund, 'qrpay_trade_refund_response');
    expect(first).toMatchObject({ code: '10000', fund_change: 'Y', refund_fee: '20.00' });
    expect(second).toMatchObject({ code: '10000', fund_change: 'N', refund_fee: '20.00' });
    const tooMuch = await call(signedParams('qrpay.trade.refund', { out_trade_no: no, refund_amount: '30.01', out_request_no: `${no}-r2` }), 'qrpay_trade_refund_response');
    expect(tooMuch).toMatchObject({ code: '40004', sub_code: 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL' });
    expect(sandbox.control.stats().refunds.executed_by_out_request_no).toMatchObject({ [`${no}-r1`]: 1, [`${no}-r2`]: 0 });
    expect(sandbox.control.trade(no)?.refundFee).toBe('20.00');
  });

  it('delays answers on request', async () => {
    sandbox.control.setDelay(5_000, 'qrpay.trade.query');
    try {
      const params = new URLSearchParams(signedParams('qrpay.trade.query', { out_trade_no: 'late' }));
      await expect(fetch(sandbox.url, { method: 'POST', body: params, signal: AbortSignal.timeout(100) })).rejects.toThrow();
      // Other methods are not delayed.
      const closed = await call(signedParams('qrpay.trade.close', { out_trade_no: 'late' }), 'qrpay_trade_close_response');
      expect(closed).toMatchObject({ sub_code: 'ACQ.TRADE_NOT_EXIST' });
    } finally {
      sandbox.control.setDelay(0, 'qrpay.trade.query');
    }
  });

  it('never notifies addresses that are not loopback', async () => {
    const no = tradeNo();
    await call(signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '1.00', subject: '测试' }, { notify_url: 'http://example.com/notify' }), 'qrpay_trade_precreate_response');
    const before = sandbox.control.stats().notifications;
    expect(sandbox.control.pay(no).ok).toBe(true);
    await sandbox.control.idle();
    const after = sandbox.control.stats().notifications;
    expect(after.refused_urls).toBe(before.refused_urls + 1);
    expect(after.sent).toBe(before.sent);
  });

  it('clears its retry timers on stop()', async () => {
    const receiver = await listen(() => 'fail');
    const local = await startQrpaySandbox({ merchantPublicKeyPem: TEST_MERCHANT_PUBLIC_KEY_PEM, appId: APP_ID, notifyRetryDelaysMs: [600_000, 600_000] });
    try {
      const no = tradeNo();
      const params = signedParams('qrpay.trade.precreate', { out_trade_no: no, total_amount: '1.00', subject: '测试' }, { notify_url: receiver.url });
      await fetch(local.url, { method: 'POST', body: new URLSearchParams(params) });
      expect(local.control.pay(no).ok).toBe(true);
      await eventually(async () => (local.control.stats().notifications.sent >= 1 ? true : null), 100, 20);
      await local.stop();
      // The ten-minute retry was cancelled: the delivery is over at once.
      await local.control.idle();
      expect(local.control.stats().notifications.sent).toBe(1);
      await expect(fetch(`${local.baseUrl}/__control/stats`)).rejects.toThrow();
    } finally {
      await local.stop();
      await receiver.stop();
    }
  });
});
