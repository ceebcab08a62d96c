import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/http.js';
import { RESPONSE_LIMIT_NORMAL } from '../helpers/limits.js';
import { registerClient, type TestClient } from '../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/** Defects found from the outside (issue: hardening), each refused in the envelope, nothing changed. */
describe('hostile input', () => {
  let platform: TestPlatform;
  let root: string;
  let client: TestClient;
  let menuId: number;

  beforeAll(async () => {
    platform = await startTestPlatform();
    root = await platform.rootToken();
    client = await registerClient(platform);
    const menu = await platform.api.post('/api/v2/admin/product-menus', { token: root, body: { name: '加固测试', product_type: 'cloud_server' } });
    menuId = menu.body.data.id as number;
  });
  afterAll(async () => platform?.close());

  const raw = (method: string, path: string, body: string | undefined, headers: Record<string, string>, token?: string) =>
    platform.api.call(method, path, { rawBody: body, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  describe('a JSON route given another content type', () => {
    it.each([
      ['text/plain', '{"username":"root","password":"x"}'],
      ['application/x-www-form-urlencoded', 'username=root&password=x'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="username"\r\n\r\nroot\r\n--b--\r\n'],
    ])('answers 41500 for %s on the admin login and the open quote', async (type, body) => {
      expectError(await raw('POST', '/api/v2/admin/login', body, { 'content-type': type }), 41500, 415);
      expectError(await raw('POST', '/api/v2/site/products/1/quote', body, { 'content-type': type }), 41500, 415);
    });

    it('answers 41500 for a body without a content type, and 40002 for malformed JSON', async () => {
      expectError(await raw('POST', '/api/v2/admin/login', '{"username":"root"}', {}), 41500, 415);
      expectError(await raw('POST', '/api/v2/admin/login', '{"username":', { 'content-type': 'application/json' }), 40002, 400);
    });
  });

  describe('the QR notification receiver', () => {
    it.each([
      ['application/json', '{"out_trade_no":"P1","trade_status":"TRADE_SUCCESS"}'],
      ['application/json', '{"out_trade_no":'],
      ['text/plain', 'out_trade_no=P1'],
    ])('answers 40000 to a %s body and records nothing', async (type, body) => {
      const before = await platform.deps.db.models.Payment.count();
      expectError(await raw('POST', '/api/v2/client/payment/qrpay/notify', body, { 'content-type': type }), 40000, 400);
      expect(await platform.deps.db.models.Payment.count()).toBe(before);
    });
  });

  describe('ids', () => {
    const hostileIds = ['2147483648', '9007199254740993', '0x10', '+1', '%201', '1.0', '1e3', '0', '-1', '01'];

    it.each(hostileIds)('refuses the path id %s with 42200 on invoice and service routes', async (id) => {
      for (const path of [`/api/v2/client/invoices/${id}`, `/api/v2/client/services/${id}`, `/api/v2/client/services/${id}/renew`]) {
        const res = await platform.api.get(path, { token: client.token });
        expectError(res, 42200, 422);
        expect(Object.keys(res.body.data.errors)).toEqual(['id']);
      }
      expectError(await platform.api.post(`/api/v2/client/invoices/${id}/pay/balance`, { token: client.token }), 42200, 422);
      expectError(await platform.api.get(`/api/v2/admin/invoices/${id}`, { token: root }), 42200, 422);
    });

    it('refuses ids beyond INTEGER in query filters and bodies', async () => {
      const listed = await platform.api.get('/api/v2/admin/invoices', { token: root, query: { user_id: '2147483648' } });
      expectError(listed, 42200, 422);
      expect(Object.keys(listed.body.data.errors)).toEqual(['user_id']);
      const bought = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: 2147483648, billing_period: 'monthly' } });
      expectError(bought, 42200, 422);
      expect(Object.keys(bought.body.data.errors)).toEqual(['product_id']);
    });

    it('still takes a plain id', async () => {
      expectError(await platform.api.get('/api/v2/client/invoices/2147483647', { token: client.token }), 40400, 404);
    });

    it('refuses absurd pages instead of sending them to the database', async () => {
      expectError(await platform.api.get('/api/v2/admin/users', { token: root, query: { page: '1e300' } }), 42200, 422);
      expectError(await platform.api.get('/api/v2/admin/users', { token: root, query: { page: '100000000' } }), 42200, 422);
    });
  });

  describe('strings', () => {
    it.each(['name', 'icon'])('refuses NUL and lone surrogates in a catalogue %s, naming the field', async (field) => {
      for (const bad of ['a\u0000b', '\ud800x']) {
        const res = await platform.api.put(`/api/v2/admin/product-menus/${menuId}`, { token: root, body: { name: '菜单', product_type: 'cloud_server', [field]: bad } });
        expectError(res, 42200, 422);
        expect(Object.keys(res.body.data.errors)).toEqual([field]);
      }
      const menu = await platform.api.get(`/api/v2/admin/product-menus/${menuId}`, { token: root });
      expect(menu.body.data.name).toBe('加固测试');
    });

    it('refuses a lone surrogate in the admin recharge remark and changes no balance', async () => {
      const res = await raw('POST', `/api/v2/admin/users/${client.id}/recharges`, '{"amount":"10.00","remark":"\\ud800"}', { 'content-type': 'application/json' }, root);
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors)).toEqual(['remark']);
      const balance = await platform.api.get('/api/v2/client/balance', { token: client.token });
      expect(balance.body.data.balance).toBe('0.00');
    });

    it('refuses control characters in keyword filters and in keys', async () => {
      for (const path of ['/api/v2/admin/users', '/api/v2/admin/services']) {
        const res = await platform.api.get(path, { token: root, query: { keyword: 'a\u0000' } });
        expectError(res, 42200, 422);
        expect(Object.keys(res.body.data.errors)).toEqual(['keyword']);
      }
      const keyed = await raw('POST', '/api/v2/site/products/1/quote', '{"config":{"\\u0000":1}}', { 'content-type': 'application/json' });
      expectError(keyed, 42200, 422);
      expect(Object.keys(keyed.body.data.errors)).toEqual(['config']);
    });

    it('keeps tabs and line breaks, which are text', async () => {
      const res = await platform.api.put(`/api/v2/admin/product-menus/${menuId}`, { token: root, body: { name: '加固测试', product_type: 'cloud_server', icon: 'a\tb' } });
      expect(res.body.code).toBe(0);
    });

    it('refuses nesting deeper than 32 levels', async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const res = await raw('POST', '/api/v2/site/products/1/quote', `{"config":${deep}}`, { 'content-type': 'application/json' });
      expectError(res, 42200, 422);
    });
  });

  describe('validation answers', () => {
    it('cut an echoed 100 KB permission code', async () => {
      const res = await platform.api.post('/api/v2/admin/auth/roles', { token: root, body: { code: 'huge', name: '巨大', permissions: ['p'.repeat(100_000)] } });
      expectError(res, 42200, 422);
      expect(res.raw.length).toBeLessThan(4096);
    });

    it('cap the error map of 1,000 bad option items and say how many fields failed', async () => {
      const config_options = Array.from({ length: 1000 }, (_, i) => ({ field: `bad-${i}`, name: 'x', option_type: 'nope' }));
      const res = await platform.api.post('/api/v2/admin/products', {
        token: root,
        body: { name: '坏选项', first_product_group_id: menuId, pricing: { monthly: '1.00' }, config_options },
      });
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors).length, JSON.stringify(res.body.data).slice(0, 600)).toBeLessThanOrEqual(20);
      expect(res.body.data.error_count).toBeGreaterThan(20);
      expect(res.raw.length).toBeLessThan(RESPONSE_LIMIT_NORMAL / 10);
    });
  });

  describe('what Node refuses before the app', () => {
    it('answers a 20 KB address with the envelope (431, 40000)', async () => {
      const res = await platform.api.get('/api/v2/site/products', { query: { keyword: '长'.repeat(2500) } });
      expectError(res, 40000, 431);
    });
  });

  describe('body size', () => {
    const big = (bytes: number) => JSON.stringify({ billing_period: 'monthly', pad: 'x'.repeat(bytes) });

    it.each([5, 20])('refuses a %i MB JSON body with 41300 before reading it', async (mb) => {
      const res = await raw('POST', '/api/v2/site/products/1/quote', big(mb * 1024 * 1024), { 'content-type': 'application/json' });
      expectError(res, 41300, 413);
    });

    it('reads a JSON body with a UTF-8 byte order mark as fetch does (the mark dropped, not a malformed body)', async () => {
      const res = await raw('POST', '/api/v2/site/products/2147483647/quote', '\uFEFF{"billing_period":"monthly"}', { 'content-type': 'application/json' });
      expectError(res, 40400, 404);
    });

    it('refuses a chunked body once it passes the limit', async () => {
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"pad":"'));
          if (sent++ < 80) controller.enqueue(chunk);
          else {
            controller.enqueue(new TextEncoder().encode('"}'));
            controller.close();
          }
        },
      });
      const res = await fetch(`${platform.baseUrl}/api/v2/site/products/1/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { code: number }).code).toBe(41300);
    });
  });
});
