import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsSandbox, type SmsSandbox } from '../../sandbox/sms/server.js';
import { signParams, stringToSign } from '../../sandbox/sms/signing.js';

let sandbox: SmsSandbox;

beforeAll(async () => {
  sandbox = await startSmsSandbox({ port: 0, accessKeys: { k1: 'secret-1' }, signNames: ['测试云'] });
});
afterAll(async () => {
  await sandbox.stop();
});

let seq = 0;
function params(overrides: Record<string, string> = {}): Record<string, string> {
  seq += 1;
  return {
    access_key_id: 'k1',
    phone: '13800001234',
    sign_name: '测试云',
    template_code: 'SMS_1',
    template_params: JSON.stringify({ code: '1234' }),
    timestamp: String(Math.floor(Date.now() / 1000)),
    nonce: `nonce-${seq}-${Date.now()}`,
    ...overrides,
  };
}

async function send(p: Record<string, string>, secret = 'secret-1') {
  const body = { ...p, signature: signParams(secret, p) };
  const res = await fetch(`${sandbox.baseUrl}/v1/sms/send`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('the SMS gateway sandbox', () => {
  it('defines the string to sign as sorted, encoded pairs without signature and empty values', () => {
    expect(stringToSign({ b: 'x y', a: '1', signature: 'zzz', c: '' })).toBe('a=1&b=x%20y');
  });

  it('accepts a signed send and lists it under /__control/messages', async () => {
    const ok = await send(params());
    expect(ok).toMatchObject({ status: 200, json: { code: 'OK' } });
    const listed = (await (await fetch(`${sandbox.baseUrl}/__control/messages`)).json()) as { messages: Array<Record<string, unknown>> };
    expect(listed.messages).toEqual([expect.objectContaining({ biz_id: ok.json.biz_id, phone: '13800001234', params: { code: '1234' } })]);
    await fetch(`${sandbox.baseUrl}/__control/messages`, { method: 'DELETE' });
    expect(sandbox.control.messages()).toHaveLength(0);
  });

  it('rejects a bad signature, a replayed nonce, a stale timestamp and an unapproved sign name', async () => {
    expect((await send(params(), 'wrong')).json.code).toBe('SignatureDoesNotMatch');
    const p = params();
    expect((await send(p)).status).toBe(200);
    expect((await send(p)).json.code).toBe('SignatureNonceUsed');
    expect((await send(params({ timestamp: String(Math.floor(Date.now() / 1000) - 301) }))).json.code).toBe('InvalidTimeStamp.Expired');
    expect((await send(params({ sign_name: '别的' }))).json.code).toBe('isv.SMS_SIGNATURE_ILLEGAL');
    expect((await send(params({ phone: '12345' }))).json.code).toBe('isv.MOBILE_NUMBER_ILLEGAL');
  });

  it('applies failure switches set over HTTP, for a number of sends or until cleared', async () => {
    await fetch(`${sandbox.baseUrl}/__control/failure`, { method: 'POST', body: JSON.stringify({ mode: 'rate_limited', times: 1 }) });
    expect((await send(params())).status).toBe(429);
    expect((await send(params())).status).toBe(200);
    sandbox.control.setFailure('http_500');
    expect((await send(params())).status).toBe(500);
    expect((await send(params())).status).toBe(500);
    sandbox.control.setFailure('none');
    expect((await send(params())).status).toBe(200);
    expect(sandbox.control.counters().rejected).toBeGreaterThanOrEqual(8);
  });
});
