import { Hono, type MiddlewareHandler } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_SECURITY_HEADERS, securityHeaders } from '../../api/middleware/security-headers.js';
import { createApp } from '../../api/app.js';
import { type ServedApp, serveApp } from '../../api/server.js';
import { type ApiClient, createApiClient, expectError } from '../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

const SHOP = 'https://shop.example.com';
const EVIL = 'https://evil.example.com';

let platform: TestPlatform;
let token: string;
// The same deps without CORS_ORIGINS: the default.
let noCors: { served: ServedApp; api: ApiClient; baseUrl: string };

beforeAll(async () => {
  platform = await startTestPlatform({ env: { CORS_ORIGINS: `${SHOP},http://localhost:5173` } });
  token = await platform.rootToken();
  const deps = { ...platform.deps, config: { ...platform.deps.config, corsOrigins: [] } };
  const served = await serveApp(createApp(deps), { hostname: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${served.port}`;
  noCors = { served, baseUrl, api: createApiClient(baseUrl) };
});
afterAll(async () => {
  await noCors?.served.stop();
  await platform?.close();
});

function expectSecurityHeaders(headers: Headers) {
  expect({
    nosniff: headers.get('x-content-type-options'),
    frame: headers.get('x-frame-options'),
    referrer: headers.get('referrer-policy'),
  }).toEqual({ nosniff: 'nosniff', frame: 'DENY', referrer: 'no-referrer' });
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
}

function corsHeaders(headers: Headers): string[] {
  return [...headers.keys()].filter((name) => name.startsWith('access-control-'));
}

describe('security headers', () => {
  it('set before the app runs are exactly what hono secure headers of the JSON policy set', async () => {
    const probe = new Hono();
    probe.use(securityHeaders() as MiddlewareHandler);
    probe.get('/', (c) => c.body(null, 204));
    const expected = [...(await probe.request('/')).headers].sort(([a], [b]) => a.localeCompare(b));
    const ours = ANSWER_SECURITY_HEADERS.map(([name, value]) => [name.toLowerCase(), value]).sort(([a], [b]) => (a as string).localeCompare(b as string));
    expect(ours).toEqual(expected);
    const res = await platform.api.get('/api/v2/admin/auth/me', { token });
    for (const [name, value] of expected) expect(res.headers.get(name as string), name).toBe(value);
  });

  it('are on a public catalogue read, which stays cacheable', async () => {
    const res = await platform.api.get('/api/v2/site/config');
    expect(res.body.code).toBe(0);
    expectSecurityHeaders(res.headers);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBeNull();
  });

  it('are on authenticated answers of both surfaces, with Cache-Control: no-store', async () => {
    const admin = await platform.api.get('/api/v2/admin/auth/me', { token });
    expect(admin.body.code).toBe(0);
    expectSecurityHeaders(admin.headers);
    expect(admin.headers.get('cache-control')).toBe('no-store');
    const reg = await platform.api.post('/api/v2/client/register', { body: { email: 'headers@example.com', password: 'headers-password-1' } });
    expect(reg.headers.get('cache-control')).toBe('no-store');
    const me = await platform.api.get('/api/v2/client/auth/me', { token: reg.body.data.access_token });
    expectSecurityHeaders(me.headers);
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('are on error answers: 404, 405, 422 and 401', async () => {
    const missing = await platform.api.get('/api/v2/admin/nothing-here', { token });
    expectError(missing, 40400, 404);
    const wrongMethod = await platform.api.del('/api/v2/site/config');
    expectError(wrongMethod, 40500, 405);
    const invalid = await platform.api.post('/api/v2/client/register', { body: { email: 'not-an-email', password: 'x' } });
    expectError(invalid, 42200, 422);
    const anonymous = await platform.api.get('/api/v2/admin/auth/me');
    expectError(anonymous, 40100, 401);
    for (const res of [missing, wrongMethod, invalid, anonymous]) {
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('give the API reference page a CSP without inline scripts, which its markup needs none of', async () => {
    const page = await fetch(`${platform.baseUrl}/api/docs`);
    expect(page.status).toBe(200);
    expectSecurityHeaders(page.headers);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${new URL(platform.deps.config.publicBaseUrl).origin}`);
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attrs]) => /src="([^"]+)"/.exec(attrs ?? '')?.[1])).toEqual(['/api/docs/assets/swagger-ui-bundle.js', '/api/docs/assets/init.js']);
    expect(scripts.every(([, , body]) => body?.trim() === '')).toBe(true);
    expect(html).not.toMatch(/<style|style="|on[a-z]+="/i);
    for (const src of ['/api/docs/assets/swagger-ui-bundle.js', '/api/docs/assets/init.js', '/api/docs/assets/swagger-ui.css']) {
      const asset = await fetch(`${platform.baseUrl}${src}`);
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get('x-content-type-options'), src).toBe('nosniff');
      expect(asset.headers.get('content-type'), src).toMatch(src.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
    }
    expect(await (await fetch(`${platform.baseUrl}/api/docs/assets/init.js`)).text()).toContain("SwaggerUIBundle({ url: '/api/openapi.json'");
    // The swagger-ui files keep the cache policy they set themselves.
    expect((await fetch(`${platform.baseUrl}/api/docs/assets/swagger-ui.css`)).headers.get('cache-control')).toBe('public, max-age=86400');
  });
});

describe('CORS', () => {
  const preflight = (baseUrl: string, origin: string, path = '/api/v2/admin/auth/me') =>
    fetch(`${baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,content-type,idempotency-key,x-request-id' },
    });

  it('answers a preflight from a configured origin with 204 and what the API accepts', async () => {
    const res = await preflight(platform.baseUrl, SHOP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-allow-methods')?.split(',')).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']));
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-request-id']),
    );
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
    expectSecurityHeaders(res.headers);
  });

  it('lets a configured origin read the answer and its X-Request-Id', async () => {
    const res = await platform.api.get('/api/v2/admin/auth/me', { token, headers: { origin: SHOP } });
    expect(res.body.code).toBe(0);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('gives any other origin no CORS header: its preflight is the usual 40500 / 40400 envelope', async () => {
    for (const baseUrl of [platform.baseUrl, noCors.baseUrl]) {
      const refused = await platform.api.call('OPTIONS', `${baseUrl}/api/v2/admin/auth/me`, {
        headers: { origin: baseUrl === platform.baseUrl ? EVIL : SHOP, 'access-control-request-method': 'GET' },
      });
      expectError(refused, 40500, 405);
      expect(corsHeaders(refused.headers)).toEqual([]);
      const unknown = await platform.api.call('OPTIONS', `${baseUrl}/api/v2/nothing-here`, { headers: { origin: EVIL, 'access-control-request-method': 'GET' } });
      expectError(unknown, 40400, 404);
      expect(corsHeaders(unknown.headers)).toEqual([]);
    }
    const read = await platform.api.get('/api/v2/site/config', { headers: { origin: EVIL } });
    expect(corsHeaders(read.headers)).toEqual([]);
    expect(read.headers.get('vary')).toContain('Origin');
  });

  it('varies every answer by Origin, remembered public reads included, and lets a configured origin read a public answer', async () => {
    for (let i = 0; i < 3; i += 1) {
      // The second and third are answered from the remembered answer, before the router (api/public-answers.ts).
      const read = await platform.api.get('/api/v2/site/products?page=1&page_size=5');
      expect(read.body.code).toBe(0);
      expect(read.headers.get('vary')).toBe('Origin');
      expect(corsHeaders(read.headers)).toEqual([]);
    }
    const shop = await platform.api.get('/api/v2/site/products?page=1&page_size=5', { headers: { origin: SHOP } });
    expect(shop.body.code).toBe(0);
    expect(shop.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(shop.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
    expect(shop.headers.get('vary')).toBe('Origin');
    expectSecurityHeaders(shop.headers);
    // Without CORS_ORIGINS nothing varies by origin and no origin is allowed.
    const plain = await noCors.api.get('/api/v2/site/products?page=1&page_size=5', { headers: { origin: SHOP } });
    expect(plain.body.code).toBe(0);
    expect(plain.headers.get('vary')).toBeNull();
    expect(corsHeaders(plain.headers)).toEqual([]);
  });
});
