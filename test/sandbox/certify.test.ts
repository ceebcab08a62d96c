import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../sandbox/certify/signing.js';
import { startCertifySandbox, type CertifySandbox } from '../../sandbox/certify/server.js';

let sandbox: CertifySandbox;

beforeAll(async () => {
  sandbox = await startCertifySandbox({ port: 0, appId: 'app-1', appSecret: 'secret-1' });
});
afterAll(async () => {
  await sandbox.stop();
});

async function call(path: string, body: Record<string, unknown>, opts: { secret?: string; nowSeconds?: number; nonce?: string } = {}) {
  const text = JSON.stringify(body);
  const headers = signedHeaders('app-1', opts.secret ?? 'secret-1', { method: 'POST', path, body: text }, opts);
  const res = await fetch(`${sandbox.baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: text });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const person = { kind: 'face', name: '张三', id_number: '11010519491231002X', callback_url: 'http://127.0.0.1:1/cb' };

describe('the certify sandbox', () => {
  it('initialises idempotently per outer_order_no and keeps only masked personal data', async () => {
    const a = await call('/certify/init', { ...person, outer_order_no: 'V-1' });
    const b = await call('/certify/init', { ...person, outer_order_no: 'V-1' });
    expect(a.status).toBe(200);
    expect(a.json.data.certify_id).toMatch(/^CT/);
    expect(b.json.data.certify_id).toBe(a.json.data.certify_id);
    const record = sandbox.control.records().find((r) => r.certify_id === a.json.data.certify_id);
    expect(record?.masked_id_number).toBe('1****************X');
    expect(JSON.stringify(sandbox.control.records())).not.toContain('张三');
  });

  it('rejects a wrong secret, a replayed nonce and a stale timestamp', async () => {
    const wrong = await call('/certify/query', { certify_id: 'x' }, { secret: 'other' });
    expect(wrong).toMatchObject({ status: 401, json: { code: 'INVALID_SIGNATURE' } });
    const first = await call('/certify/query', { certify_id: 'x' }, { nonce: 'nonce-replay-1' });
    expect(first.json.code).toBe('CERTIFY_NOT_FOUND');
    const replay = await call('/certify/query', { certify_id: 'x' }, { nonce: 'nonce-replay-1' });
    expect(replay.json.code).toBe('NONCE_REPLAYED');
    const stale = await call('/certify/query', { certify_id: 'x' }, { nowSeconds: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.json.code).toBe('TIMESTAMP_EXPIRED');
  });

  it('finishes through the signed verify URL, refuses a tampered one and records the callback', async () => {
    const init = await call('/certify/init', { ...person, outer_order_no: 'V-2' });
    const certifyId = init.json.data.certify_id as string;
    const urlAnswer = await call('/certify/url', { certify_id: certifyId });
    const url = new URL(urlAnswer.json.data.certify_url as string);
    expect(url.origin).toBe(sandbox.baseUrl);
    const tampered = new URL(url);
    tampered.searchParams.set('sig', '0'.repeat(64));
    tampered.searchParams.set('result', 'pass');
    expect((await fetch(tampered)).status).toBe(403);
    url.searchParams.set('result', 'fail');
    url.searchParams.set('reason', 'ID_MISMATCH');
    const done = await fetch(url, { method: 'POST' });
    expect(done.status).toBe(200);
    const query = await call('/certify/query', { certify_id: certifyId });
    expect(query.json.data).toMatchObject({ status: 'FAILED', passed: 'F', fail_code: 'ID_MISMATCH' });
    const delivery = sandbox.control.callbacks().find((c) => c.certify_id === certifyId);
    expect(delivery?.path).toBe('/cb');
    expect(delivery?.body).toBe(JSON.stringify({ certify_id: certifyId, event: 'certify.finished' }));
    expect(delivery?.error).not.toBeNull();
  });

  it('arms failures through the HTTP control routes', async () => {
    const arm = await fetch(`${sandbox.baseUrl}/__control/fail-next`, {
      method: 'POST',
      body: JSON.stringify({ endpoint: 'query', mode: 'http_500' }),
    });
    expect(arm.status).toBe(200);
    expect((await call('/certify/query', { certify_id: 'x' })).status).toBe(500);
    expect((await call('/certify/query', { certify_id: 'x' })).status).toBe(404);
    const counters = (await (await fetch(`${sandbox.baseUrl}/__control/counters`)).json()) as { counters: { query: number } };
    expect(counters.counters.query).toBe(sandbox.control.counters().query);
    expect(counters.counters.query).toBeGreaterThanOrEqual(4);
  });

  it('answers 503 on every API endpoint during an outage, and normally after it', async () => {
    sandbox.control.setOutage(true);
    const down = await call('/certify/init', { ...person, outer_order_no: 'V-outage' });
    expect(down.status).toBe(503);
    sandbox.control.setOutage(false);
    const up = await call('/certify/init', { ...person, outer_order_no: 'V-outage' });
    expect(up.status).toBe(200);
  });

  it('signs a forged callback with another secret and a late one outside the clock window', async () => {
    const init = await call('/certify/init', { ...person, outer_order_no: 'V-modes' });
    const certifyId = init.json.data.certify_id as string;
    const forged = await sandbox.control.sendCallback(certifyId, { secret: 'wrong' });
    const late = await sandbox.control.sendCallback(certifyId, { timestampOffsetSeconds: -3600 });
    const body = forged?.body ?? '';
    const expected = signedHeaders('app-1', 'secret-1', { method: 'POST', path: forged?.path ?? '', body }, { nowSeconds: Number(forged?.headers['X-Timestamp']), nonce: forged?.headers['X-Nonce'] as string });
    expect(forged?.headers['X-Signature']).not.toBe(expected['X-Signature']);
    expect(Number(late?.headers['X-Timestamp'])).toBeLessThan(Math.floor(Date.now() / 1000) - 3000);
  });
});
