import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSession } from '../../domain/auth/sessions.js';
import { expectError } from '../helpers/http.js';
import { WRITE_TEXT } from '../../db/statement.js';
import { currentRequestContext } from '../../lib/request-context.js';
import { plausibleBody, resolveSchema, type Schema, type SchemaDocument } from '../helpers/plausible-body.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * A query parameter a route does not declare is refused with 42200 naming it (a misspelt filter
 * must not answer everything), on every operation of the OpenAPI document: today's routes and
 * every route added later. Only the routes marked `x-open-query` take undeclared parameters.
 */
type Operation = {
  'x-access'?: { surface: 'public' | 'admin' | 'client' };
  'x-open-query'?: string;
  requestBody?: { content: Record<string, { schema?: Schema }> };
};
type Document = SchemaDocument & { paths: Record<string, Record<string, Operation>> };

const UNKNOWN = 'zz_not_a_parameter';

let platform: TestPlatform;
let doc: Document;
let clientId: number;
let adminId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as Document;
  const reg = await platform.api.post('/api/v2/client/register', { body: { email: `unknown-query-${platform.id}@example.com`, password: 'unknown-query-1' } });
  clientId = reg.body.data.user.id as number;
  adminId = (await platform.deps.db.models.Admin.findOne({ where: { username: 'root' } }))?.id as number;
});
afterAll(() => platform?.close());

/** A fresh session per request: were a route to run despite the parameter, a logout would revoke only its own. */
async function tokenFor(surface: 'public' | 'admin' | 'client'): Promise<string | undefined> {
  if (surface === 'public') return undefined;
  return (await issueSession(platform.deps, surface, surface === 'admin' ? adminId : clientId, { ip: '127.0.0.1', userAgent: 'unknown-query' })).access_token;
}

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })));

describe('an undeclared query parameter', () => {
  it('is refused with 42200 naming it, on every operation not marked x-open-query', { timeout: 300_000 }, async () => {
    const checked = operations().filter((o) => !o.op['x-open-query']);
    expect(checked.length).toBeGreaterThan(200);
    const wrong: string[] = [];
    for (const { name, method, path, op } of checked) {
      const token = await tokenFor(op['x-access']?.surface ?? 'public');
      const res = await platform.api.call(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'), {
        token,
        query: { [UNKNOWN]: '1' },
        ...(method === 'get' ? {} : { body: {} }),
      });
      const named = (res.body.data as { errors?: Record<string, string[]> } | null)?.errors?.[UNKNOWN]?.[0] ?? '';
      if (res.body.code !== 42200 || res.status !== 422 || !named.includes('未知的查询参数') || !res.body.message.includes(UNKNOWN)) {
        wrong.push(`${name}: ${res.status} ${res.body.code} ${res.body.message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('is taken only by the routes that must take it, each with its reason in the document', () => {
    const open = operations().filter((o) => o.op['x-open-query']);
    expect(open.map((o) => o.name).sort()).toEqual([
      'GET /api/health',
      'GET /api/secure-assets/view',
      'GET /api/v2/client/verification/callback',
      'GET /api/v2/client/verification/scan',
      'POST /api/v2/client/payment/qrpay/notify',
      'POST /api/v2/client/verification/callback',
    ]);
    for (const { name, op } of open) expect(op['x-open-query'], name).toMatch(/\p{Script=Han}{4,}/u);
  });

  it('is still taken by an open route (health answers as usual)', async () => {
    const res = await platform.api.get('/api/health', { query: { [UNKNOWN]: '1' } });
    expect(res.body.code).toBe(0);
  });
});

describe('the report', () => {
  it('names the misspelt filter of the issue (campaign for campaign_id) and lists the parameters the route takes', async () => {
    const token = await platform.rootToken();
    const res = await platform.api.get('/api/v2/admin/coupons', { token, query: { campaign: 3 } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors).toEqual({ campaign: ['未知的查询参数：campaign'] });
    expect(res.body.message).toContain('campaign_id');
  });

  it('names every unknown key, a prototype key among them, and no declared one', async () => {
    const token = await platform.rootToken();
    const url = new URL('/api/v2/admin/coupons?__proto__=1&constructor=2&page=1&page_size=5', platform.baseUrl);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { code: number; message: string; data: { errors: Record<string, string[]> } };
    expect(res.status).toBe(422);
    expect(body.code).toBe(42200);
    expect(body.message).toContain('__proto__');
    expect(body.message).toContain('constructor');
    expect(Object.hasOwn(body.data.errors, 'constructor')).toBe(true);
    expect(Object.keys(body.data.errors)).not.toContain('page');
  });

  it('refuses any parameter on a route that declares none', async () => {
    const token = await platform.rootToken();
    const res = await platform.api.get('/api/v2/admin/auth/me', { token, query: { page: 1 } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.page[0]).toBe('未知的查询参数：page');
    expect(res.body.message).toContain('不接受查询参数');
  });

  it('keeps the legacy paging names pointing to page and page_size on lists', async () => {
    const token = await platform.rootToken();
    const res = await platform.api.get('/api/v2/admin/users', { token, query: { per_page: 10 } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.per_page[0]).toContain('page_size');
  });
});

describe('declared parameters', () => {
  it('work as before, a repeated declared key included (refused by its own schema, not as unknown)', async () => {
    const token = await platform.rootToken();
    const good = await platform.api.get('/api/v2/admin/coupons', { token, query: { page: 1, page_size: 5, campaign_id: 3 } });
    expect(good.body.code).toBe(0);
    const url = new URL('/api/v2/admin/users?page=1&page=2', platform.baseUrl);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { code: number; message: string; data: { errors: Record<string, string[]> } };
    expect(body.code).toBe(42200);
    expect(body.message).not.toContain('未知');
    expect(body.data.errors.page?.[0]).not.toContain('未知');
  });
});

/** What a request wrote (statements sent on its behalf that change rows), besides its audit row. */
async function writesOf<T>(requestId: string, work: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const writes: string[] = [];
  proto.query = function watch(this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
    if (typeof text === 'string' && currentRequestContext()?.requestId === requestId && WRITE_TEXT.test(text) && !/admin_audit_logs/.test(text)) {
      writes.push(text.slice(0, 120));
    }
    return original.apply(this, args);
  };
  try {
    return { result: await work(), writes };
  } finally {
    proto.query = original;
  }
}

describe('an undeclared JSON body key', () => {
  const EXTRA = 'zz_not_a_field';

  it('is refused with 42200 naming it, and changes nothing, on every operation with a JSON body (a free map at the root excepted)', { timeout: 300_000 }, async () => {
    const withBody = operations().filter((o) => o.method !== 'get' && o.op.requestBody?.content['application/json']);
    expect(withBody.length).toBeGreaterThan(80);
    const wrong: string[] = [];
    const open: string[] = [];
    for (const [i, { name, method, path, op }] of withBody.entries()) {
      const schema = resolveSchema(doc, op.requestBody?.content['application/json']?.schema);
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
        open.push(name);
        continue;
      }
      const token = await tokenFor(op['x-access']?.surface ?? 'public');
      const body = { ...(plausibleBody(doc, schema) as Record<string, unknown>), [EXTRA]: 'super_admin' };
      const requestId = `body-key-${i}`;
      const { result: res, writes } = await writesOf(requestId, () =>
        platform.api.call(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'), { token, body, headers: { 'x-request-id': requestId } }),
      );
      const named = (res.body.data as { errors?: Record<string, string[]> } | null)?.errors?.[EXTRA]?.[0] ?? '';
      if (res.body.code !== 42200 || res.status !== 422 || !named.includes('未知的字段') || !res.body.message.includes(EXTRA)) {
        wrong.push(`${name}: ${res.status} ${res.body.code} ${res.body.message}`);
      }
      if (writes.length) wrong.push(`${name}: wrote ${writes.join(' | ')}`);
    }
    expect(wrong).toEqual([]);
    // A route whose whole body is a free map declares it (z.record): none does today.
    expect(open).toEqual([]);
  });
});
