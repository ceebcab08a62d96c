import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFormBody } from '../../sandbox/upstream-finance/body.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';

type Envelope = { status: number; msg: string; data: Record<string, unknown>; jwt?: string };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('upstream finance sandbox', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox({ accounts: [DEFAULT_SANDBOX_ACCOUNT, { username: 'other', apiKey: 'other-key' }] });
  });

  beforeEach(() => sandbox.control.resetCounters());

  afterAll(async () => {
    await sandbox.stop();
  });

  async function call(path: string, init: RequestInit = {}): Promise<{ http: number; body: Envelope }> {
    const response = await fetch(`${sandbox.baseUrl}${path}`, init);
    return { http: response.status, body: (await response.json()) as Envelope };
  }

  async function login(username = DEFAULT_SANDBOX_ACCOUNT.username, apiKey = DEFAULT_SANDBOX_ACCOUNT.apiKey): Promise<string> {
    const { body } = await call('/finance_api_login', { method: 'POST', headers: FORM, body: new URLSearchParams({ username, password: apiKey }).toString() });
    if (!body.jwt) throw new Error(`login failed: ${body.msg}`);
    return body.jwt;
  }

  it('logs in with a form and answers the JWT at the top level, valid for the configured lifetime', async () => {
    const { http, body } = await call('/finance_api_login', {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ username: DEFAULT_SANDBOX_ACCOUNT.username, password: DEFAULT_SANDBOX_ACCOUNT.apiKey }).toString(),
    });
    expect(http).toBe(200);
    expect(body).toMatchObject({ status: 200, msg: '登录成功' });
    const claims = JSON.parse(Buffer.from(body.jwt?.split('.')[1] ?? '', 'base64url').toString()) as { exp: number; iat: number };
    expect(claims.exp - claims.iat).toBe(7200);
    expect(sandbox.control.counters().logins).toBe(1);
  });

  it('accepts a JSON login and refuses a wrong key with status 400 over HTTP 200', async () => {
    const json = await call('/finance_api_login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'other', password: 'other-key' }) });
    expect(json.body.status).toBe(200);
    const wrong = await call('/finance_api_login', { method: 'POST', headers: FORM, body: 'username=other&password=nope' });
    expect(wrong).toEqual({ http: 200, body: { status: 400, msg: '账号或API密钥错误', data: {} } });
  });

  it('answers 405 on data calls without a valid token and after tokens are expired', async () => {
    expect((await call('/cart/credit')).body.status).toBe(405);
    expect((await call('/v1/user', { headers: { authorization: 'Bearer not.a.jwt' } })).body.status).toBe(405);
    const jwt = await login();
    expect((await call('/cart/credit', { headers: { authorization: `Bearer ${jwt}` } })).body).toMatchObject({ status: 200, data: { credit: '10000.00' } });
    const expired = await fetch(`${sandbox.baseUrl}/__control/expire-tokens`, { method: 'POST' });
    expect(expired.status).toBe(200);
    expect((await call('/cart/credit', { headers: { authorization: `Bearer ${jwt}` } })).body).toMatchObject({ status: 405, msg: '登录信息已过期，请重新登录' });
    expect(sandbox.control.counters().rejectedTokens).toBe(3);
  });

  it('answers catalogue reads without a token as an anonymous visitor with higher prices', async () => {
    const jwt = await login();
    const member = await call('/cart/get_product_config?pid=101', { headers: { authorization: `Bearer ${jwt}` } });
    const visitor = await call('/cart/get_product_config?pid=101', { headers: { authorization: 'Bearer expired.token.here' } });
    expect(visitor.body.status).toBe(200);
    const monthly = (e: Envelope) => (e.data['products'] as { cycle: { billingcycle: string; product_price: string }[] }).cycle.find((c) => c.billingcycle === 'monthly')?.product_price;
    expect(monthly(member.body)).toBe('59.00');
    expect(monthly(visitor.body)).toBe('70.80');
    const all = await call('/cart/all');
    expect(all.body.status).toBe(200);
    expect(sandbox.control.counters().anonymousCatalogueReads).toBe(2);
  });

  it('pages hosts by limit and ignores pageSize', async () => {
    sandbox.control.seedHosts(25, 'other');
    const jwt = await login('other', 'other-key');
    const page = await call('/host/list?page=3&limit=10&pageSize=2', { headers: { authorization: `Bearer ${jwt}` } });
    expect(page.body.data).toMatchObject({ total: 25, page: 3, limit: 10 });
    expect(page.body.data['list']).toHaveLength(5);
    const header = await call(`/host/header?host_id=5001&source=API`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(header.body.status).toBe(406);
  });

  it('fails the next calls on command: HTML 500, maintenance and a hang released on stop', async () => {
    const fail = await fetch(`${sandbox.baseUrl}/__control/fail-next`, { method: 'POST', headers: FORM, body: 'count=1&mode=html500' });
    expect(fail.status).toBe(200);
    const html = await fetch(`${sandbox.baseUrl}/cart/all`);
    expect(html.status).toBe(500);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect((await call('/cart/all')).body.status).toBe(200);

    sandbox.control.failNext(1, 'maintenance');
    expect((await call('/cart/all')).body).toMatchObject({ status: 503, msg: '系统维护中，请稍后再试' });

    sandbox.control.failNext(1, 'timeout');
    const hung = fetch(`${sandbox.baseUrl}/cart/all`, { signal: AbortSignal.timeout(200) });
    await expect(hung).rejects.toThrow();
    const counters = (await (await fetch(`${sandbox.baseUrl}/__control/counters`)).json()) as { paths: Record<string, number> };
    expect(counters.paths['/cart/all']).toBe(4);
  });

  it('adds latency on command', async () => {
    sandbox.control.setLatency(150);
    const started = performance.now();
    await call('/cart/all');
    sandbox.control.setLatency(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('starts with no purchases and refuses bad control input', async () => {
    expect(await (await fetch(`${sandbox.baseUrl}/__control/purchases`)).json()).toEqual({});
    const bad = await fetch(`${sandbox.baseUrl}/__control/fail-next`, { method: 'POST', headers: FORM, body: 'count=1&mode=explode' });
    expect(bad.status).toBe(400);
  });

  it('parses bracket arrays in form bodies', () => {
    expect(parseFormBody('pid=101&configoption%5B12%5D=34&configoption[13]=5&hostid[]=1&hostid[]=2')).toEqual({
      pid: '101',
      configoption: { '12': '34', '13': '5' },
      hostid: ['1', '2'],
    });
  });
});
