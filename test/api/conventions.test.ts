import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

describe('envelope on every answer', () => {
  it('answers an unknown route with 40400 in the envelope', async () => {
    const res = await platform.api.get('/api/v2/admin/nothing-here', { token });
    expectError(res, 40400, 404);
    expect(res.body.data).toBeNull();
  });

  it('answers a known path with the wrong method with 40500 and Allow', async () => {
    const res = await platform.api.del('/api/health');
    expectError(res, 40500, 405);
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('answers a malformed JSON body with 40002 and changes nothing', async () => {
    const before = await platform.deps.db.models.LoginLog.count();
    const res = await platform.api.post('/api/v2/admin/login', { rawBody: '{"username":', headers: { 'content-type': 'application/json' } });
    expectError(res, 40002, 400);
    expect(await platform.deps.db.models.LoginLog.count()).toBe(before);
  });

  it('carries a request id header on every answer', async () => {
    const ok = await platform.api.get('/api/health');
    const missing = await platform.api.get('/api/v2/nope');
    expect(ok.headers.get('x-request-id')).toMatch(/.{8,}/);
    expect(missing.headers.get('x-request-id')).toMatch(/.{8,}/);
  });
});

describe('validation', () => {
  it('maps each field to an array of Chinese messages with HTTP 422', async () => {
    const res = await platform.api.post('/api/v2/client/register', { body: { email: 'not-an-email', password: 'short' } });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors).sort()).toEqual(['email', 'password']);
    for (const messages of Object.values(res.body.data.errors)) {
      expect(Array.isArray(messages)).toBe(true);
      for (const m of messages as string[]) expect(m).toMatch(/\p{Script=Han}/u);
    }
  });

  it('reports a missing required field as 42200', async () => {
    const res = await platform.api.post('/api/v2/admin/login', { body: { username: 'root' } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.password).toEqual(['此字段为必填项']);
  });
});

describe('paging', () => {
  it('defaults to page 1 and page_size 20 and returns only the page object fields', async () => {
    const res = await platform.api.get('/api/v2/admin/users', { token });
    expect(res.body.code).toBe(0);
    expect(Object.keys(res.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(res.body.data).toMatchObject({ page: 1, page_size: 20 });
  });

  it.each(['per_page', 'pageSize', 'limit', 'offset'])('refuses the legacy paging parameter %s', async (key) => {
    const res = await platform.api.get('/api/v2/admin/users', { token, query: { [key]: 10 } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors[key]?.[0]).toContain('page_size');
  });

  it.each([
    ['page', '0'],
    ['page', 'abc'],
    ['page_size', '101'],
    ['page_size', '0'],
  ])('refuses %s=%s', async (key, value) => {
    const res = await platform.api.get('/api/v2/admin/users', { token, query: { [key]: value } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors[key]).toHaveLength(1);
  });

  it('accepts page_size 100, the documented maximum', async () => {
    const res = await platform.api.get('/api/v2/admin/users', { token, query: { page_size: 100 } });
    expect(res.body.data.page_size).toBe(100);
  });

  it('maps sort keys through a whitelist', async () => {
    const good = await platform.api.get('/api/v2/admin/users', { token, query: { sort: '-created_at' } });
    expect(good.body.code).toBe(0);
    const bad = await platform.api.get('/api/v2/admin/users', { token, query: { sort: 'password_hash' } });
    expectError(bad, 42200, 422);
  });
});

describe('boolean query values', () => {
  it.each(['1', '0', 'true', 'false', 'on', 'off', 'yes', 'no', 'TRUE'])('accepts %s', async (value) => {
    const res = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { success: value } });
    expect(res.body.code).toBe(0);
  });

  it.each(['2', 'y', 'null', ''])('refuses %s with 42200', async (value) => {
    const res = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { success: value } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.success[0]).toContain('1/0');
  });

  it('filters by the parsed value', async () => {
    await platform.api.post('/api/v2/admin/login', { body: { username: 'root', password: 'wrong-password' } });
    const failed = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { success: 'no' } });
    expect(failed.body.data.total).toBeGreaterThan(0);
    expect(failed.body.data.list.every((r: { success: boolean }) => r.success === false)).toBe(true);
  });
});

describe('dates', () => {
  it('are YYYY-MM-DD HH:mm:ss in Asia/Shanghai', async () => {
    const res = await platform.api.get('/api/v2/admin/auth/me', { token });
    const created = res.body.data.created_at as string;
    expect(created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const row = await platform.deps.db.models.Admin.findByPk(res.body.data.id);
    const expected = new Date((row?.created_at as Date).getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(created).toBe(expected);
  });
});

describe('OpenAPI', () => {
  it('documents every registered route with its access rule and error codes', async () => {
    const doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { 'x-access'?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
    );
    for (const op of Object.values(doc.paths).flatMap((ops) => Object.values(ops))) {
      expect(op['x-access']).toBeDefined();
      expect(Object.keys(op.responses)).toContain('500');
    }
    for (const route of ['GET /api/health', 'POST /api/v2/admin/login', 'GET /api/v2/admin/users/{user}', 'GET /api/v2/admin/schedules/overview']) {
      expect(documented).toContain(route);
    }
  });

  it('serves the document the SDK is generated from (sdk/openapi.json)', async () => {
    const served: unknown = await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json();
    const committed: unknown = JSON.parse(await readFile(new URL('../../sdk/openapi.json', import.meta.url), 'utf8'));
    // A boolean: the difference of two 800 KB documents would drown the report.
    expect(JSON.stringify(served) === JSON.stringify(committed), 'sdk/openapi.json 已过期：请运行 npm run sdk:generate').toBe(true);
  });

  it('serves the API reference page and its assets locally', async () => {
    const page = await fetch(`${platform.baseUrl}/api/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/api/docs/assets/init.js');
    const init = await fetch(`${platform.baseUrl}/api/docs/assets/init.js`);
    expect(await init.text()).toContain('/api/openapi.json');
    const asset = await fetch(`${platform.baseUrl}/api/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
