import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../../api/app.js';
import type { AppDeps } from '../../../../api/context.js';
import { closeAppDeps, createAppDeps } from '../../../../api/deps.js';
import { TOKEN_NOT_ALLOWED, tokenScopeRefusal } from '../../../../api/middleware/personal-tokens.js';
import { type ServedApp, serveApp } from '../../../../api/server.js';
import { tokenCacheKey } from '../../../../domain/auth/personal-tokens.js';
import { createLogger } from '../../../../lib/logger.js';
import { createAccessToken } from '../../../helpers/access-tokens.js';
import { createProduct, registerClient, type TestClient } from '../../../helpers/billing.js';
import { selectRows, tableText } from '../../../helpers/db-read.js';
import { type ApiClient, createApiClient, expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;
/** A second API process on the same database, with a long-lived principal cache and a debug log kept in memory. */
let second: { deps: AppDeps; api: ApiClient; served: ServedApp; log: string[] };

beforeAll(async () => {
  platform = await startTestPlatform();
  const log: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log.push(chunk.toString());
      done();
    },
  });
  const deps = createAppDeps({ ...platform.deps.config, authCacheTtlMs: 60_000 }, createLogger('debug', 'second', sink));
  const served = await serveApp(createApp(deps), { hostname: '127.0.0.1', port: 0 });
  second = { deps, served, log, api: createApiClient(`http://127.0.0.1:${served.port}`) };
});
afterAll(async () => {
  await second?.served.stop();
  if (second) await closeAppDeps(second.deps);
  await platform?.close();
});

const createToken = (client: TestClient, body: Record<string, unknown>, api: ApiClient = platform.api) => createAccessToken(platform, client, body, api);
const sql = <T extends object>(text: string, bind: unknown[] = []) => selectRows<T>(platform, text, bind);

describe('personal access tokens', () => {
  it('are shown once, work, list their last use (time and address) without the secret, and stop when revoked', async () => {
    const client = await registerClient(platform);
    const created = await createToken(client, { name: '部署脚本', scopes: ['read'] });
    expect(created.data).toMatchObject({ name: '部署脚本', scopes: ['read'], status: 'active', user_id: client.id, last_used_at: null });
    expect(created.data.token_prefix).toBe(created.token.slice(0, 'hp_pat_'.length + 16));

    const balance = await platform.api.get('/api/v2/client/balance', { token: created.token });
    expect(balance.body.code, balance.body.message).toBe(0);

    const listed = await eventually(async () => {
      const res = await platform.api.get('/api/v2/client/access-tokens', { token: client.token });
      const item = (res.body.data.list as Array<Record<string, unknown>>).find((t) => t.id === created.id);
      return item?.last_used_at ? res : null;
    });
    expect(Object.keys(listed.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(listed.body.data.total).toBe(1);
    expect(listed.body.data.list[0]).toMatchObject({ id: created.id, status: 'active', last_used_ip: '127.0.0.1', token_prefix: created.data.token_prefix });
    expect(listed.body.data.list[0]).not.toHaveProperty('token');
    expect(listed.raw).not.toContain(created.secret);

    // Stored as the SHA-256 of the secret, never the secret.
    const [row] = await sql<{ secret_hash: Buffer }>('SELECT secret_hash FROM personal_access_tokens WHERE id = $1', [created.id]);
    expect(row?.secret_hash.equals(createHash('sha256').update(created.secret).digest())).toBe(true);
    expect(await tableText(platform, 'personal_access_tokens')).not.toContain(created.secret);

    const revoked = await platform.api.del(`/api/v2/client/access-tokens/${created.id}`, { token: client.token });
    expect(revoked.body.data).toMatchObject({ id: created.id, status: 'revoked', revoked_by_type: 'user' });
    const refused = await platform.api.get('/api/v2/client/balance', { token: created.token });
    expectError(refused, 40100, 401);
    expect(refused.body.message).toBe('访问令牌已被吊销');
    // Another user cannot see or revoke it.
    const other = await registerClient(platform);
    expectError(await platform.api.del(`/api/v2/client/access-tokens/${created.id}`, { token: other.token }), 40400, 404);
    expect((await platform.api.get('/api/v2/client/access-tokens', { token: other.token })).body.data.total).toBe(0);
  });

  it('stop at once on another API process whose cache holds the token', async () => {
    const client = await registerClient(platform);
    const created = await createToken(client, { scopes: ['read'] });
    const cacheKey = tokenCacheKey(created.token.slice(7, 23), createHash('sha256').update(created.secret).digest());
    await eventually(async () => {
      expect((await second.api.get('/api/v2/client/balance', { token: created.token })).body.code).toBe(0);
      return second.deps.authCache?.get(cacheKey) ?? null;
    });
    await platform.api.del(`/api/v2/client/access-tokens/${created.id}`, { token: client.token });
    await eventually(async () => ((await second.api.get('/api/v2/client/balance', { token: created.token })).body.code === 40100 ? true : null));
    expect(second.deps.authCache?.get(cacheKey)).toBeNull();
  });

  it('refuse an expired token, a wrong secret and a malformed token with 40100', async () => {
    const client = await registerClient(platform);
    const created = await createToken(client, { scopes: ['read'] });
    const wrong = created.token.slice(0, -1) + (created.token.endsWith('0') ? '1' : '0');
    const badSecret = await platform.api.get('/api/v2/client/balance', { token: wrong });
    expectError(badSecret, 40100, 401);
    expect(badSecret.body.message).toBe('访问令牌无效');
    expectError(await platform.api.get('/api/v2/client/balance', { token: 'hp_pat_short' }), 40100, 401);

    await sql(`UPDATE personal_access_tokens SET created_at = now() - interval '2 days', expires_at = now() - interval '1 second' WHERE id = $1 RETURNING id`, [created.id]);
    const expired = await platform.api.get('/api/v2/client/balance', { token: created.token });
    expectError(expired, 40100, 401);
    expect(expired.body.message).toBe('访问令牌已过期');
    const list = await platform.api.get('/api/v2/client/access-tokens', { token: client.token, query: { status: 'expired' } });
    expect(list.body.data.list.map((t: { id: number }) => t.id)).toEqual([created.id]);
  });

  it('act only within their scopes, and never on account management', async () => {
    const client = await registerClient(platform);
    const product = await createProduct(platform);
    const read = await createToken(client, { scopes: ['read'] });
    const purchase = await createToken(client, { scopes: ['purchase'] });
    const consoleToken = await createToken(client, { scopes: ['console'] });
    const all = await createToken(client, { scopes: ['read', 'purchase', 'console'] });
    const order = { product_id: product.id, billing_period: 'monthly' };

    const readBuys = await platform.api.post('/api/v2/client/invoices', { token: read.token, body: order });
    expectError(readBuys, 40300, 403);
    expect(readBuys.body.message).toBe(tokenScopeRefusal('purchase'));
    const bought = await platform.api.post('/api/v2/client/invoices', { token: purchase.token, body: order });
    expect(bought.body.code, bought.body.message).toBe(0);
    const purchaseReads = await platform.api.get('/api/v2/client/invoices', { token: purchase.token });
    expectError(purchaseReads, 40300, 403);
    expect(purchaseReads.body.message).toBe(tokenScopeRefusal('read'));
    expect((await platform.api.get('/api/v2/client/invoices', { token: read.token })).body.data.total).toBe(1);

    const purchaseConsole = await platform.api.post('/api/v2/client/services/1/vnc', { token: purchase.token, body: {} });
    expectError(purchaseConsole, 40300, 403);
    expect(purchaseConsole.body.message).toBe(tokenScopeRefusal('console'));
    // The console token passes the access check: the service is simply not the user's.
    expectError(await platform.api.post('/api/v2/client/services/1/vnc', { token: consoleToken.token, body: {} }), 40400, 404);

    const accountRoutes: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['POST', '/api/v2/client/password', { old_password: 'buyer-password-1', new_password: 'changed-password-1' }],
      ['POST', '/api/v2/client/access-tokens', { name: '再来一个', scopes: ['read'], expires_in_days: 1 }],
      ['GET', '/api/v2/client/access-tokens', undefined],
      ['DELETE', `/api/v2/client/access-tokens/${read.id}`, undefined],
      ['GET', '/api/v2/client/auth/me', undefined],
      ['POST', '/api/v2/client/auth/refresh', undefined],
      ['POST', '/api/v2/client/auth/logout', undefined],
      ['GET', '/api/v2/client/verification/status', undefined],
      ['POST', '/api/v2/client/verification/init', { name: '张三', id_number: '110101199003074517' }],
    ];
    for (const [method, path, body] of accountRoutes) {
      const res = await platform.api.call(method, path, { token: all.token, body });
      expect({ route: `${method} ${path}`, code: res.body.code, message: res.body.message }).toEqual({ route: `${method} ${path}`, code: 40300, message: TOKEN_NOT_ALLOWED });
    }
    // Nothing changed: the password still signs in, the read token still works.
    const login = await platform.api.post('/api/v2/client/login', { body: { account: (await userEmail(client.id)) as string, password: 'buyer-password-1' } });
    expect(login.body.code).toBe(0);
    expect((await platform.api.get('/api/v2/client/balance', { token: read.token })).body.code).toBe(0);
  });

  it('share the user\'s idempotency keys with the login sessions (limits keyed on the user apply alike)', async () => {
    const client = await registerClient(platform);
    const product = await createProduct(platform);
    const purchase = await createToken(client, { scopes: ['purchase'] });
    const body = { product_id: product.id, billing_period: 'monthly' };
    const headers = { 'Idempotency-Key': `pat-${client.id}` };
    const first = await platform.api.post('/api/v2/client/invoices', { token: client.token, body, headers });
    expect(first.body.code, first.body.message).toBe(0);
    const again = await platform.api.post('/api/v2/client/invoices', { token: purchase.token, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it('are never an admin credential, nor an identity on public routes', async () => {
    const client = await registerClient(platform);
    const all = await createToken(client, { scopes: ['read', 'purchase', 'console'] });
    const admin = await platform.api.get('/api/v2/admin/users', { token: all.token });
    expectError(admin, 40100, 401);
    expect(admin.body.message).toBe('个人访问令牌不能用于管理端接口');
    expectError(await platform.api.get('/api/v2/admin/access-tokens', { token: all.token }), 40100, 401);
    // The console page's token exchange takes a login token as the caller's identity, never a personal access token.
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${'a'.repeat(43)}`, { token: all.token }), 40100, 401);
  });

  it('refuse bad creation input with 42200 and a Chinese message, and cap the live tokens of a user', async () => {
    const client = await registerClient(platform);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: '无期限', scopes: ['read'] }, 'expires_in_days'],
      [{ name: '太久', scopes: ['read'], expires_in_days: 366 }, 'expires_in_days'],
      [{ name: '零天', scopes: ['read'], expires_in_days: 0 }, 'expires_in_days'],
      [{ name: '无范围', scopes: [], expires_in_days: 1 }, 'scopes'],
      [{ name: '管理员', scopes: ['admin'], expires_in_days: 1 }, 'scopes'],
      [{ name: '重复', scopes: ['read', 'read'], expires_in_days: 1 }, 'scopes'],
      [{ name: '   ', scopes: ['read'], expires_in_days: 1 }, 'name'],
      [{ name: null, scopes: ['read'], expires_in_days: 1 }, 'name'],
      [{ name: 'a\u0000b', scopes: ['read'], expires_in_days: 1 }, 'name'],
      [{ name: 'x'.repeat(65), scopes: ['read'], expires_in_days: 1 }, 'name'],
      [{ name: '浮点', scopes: ['read'], expires_in_days: 1.5 }, 'expires_in_days'],
      [{ name: '巨大', scopes: ['read'], expires_in_days: 1e308 }, 'expires_in_days'],
      [{ name: '字符串', scopes: 'read', expires_in_days: 1 }, 'scopes'],
    ];
    for (const [body, field] of bad) {
      const res = await platform.api.post('/api/v2/client/access-tokens', { token: client.token, body });
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors).join(','), JSON.stringify(body)).toContain(field);
    }
    expectError(await platform.api.get('/api/v2/client/access-tokens', { token: client.token, query: { status: 'gone' } }), 42200, 422);
    expectError(await platform.api.del('/api/v2/client/access-tokens/01', { token: client.token }), 42200, 422);
    for (let i = 0; i < 20; i += 1) await createToken(client, { name: `令牌${i}`, scopes: ['read'], expires_in_days: 1 });
    const over = await platform.api.post('/api/v2/client/access-tokens', { token: client.token, body: { name: '第21个', scopes: ['read'], expires_in_days: 1 } });
    expectError(over, 42200, 422);
    expect(over.body.message).toContain('最多只能同时持有 20 个');
  });

  it('never reach the request log or the process log', async () => {
    const client = await registerClient(platform);
    const created = await createToken(client, { scopes: ['read'] }, second.api);
    expect((await second.api.get('/api/v2/client/balance', { token: created.token })).body.code).toBe(0);
    expectError(await second.api.post('/api/v2/client/invoices', { token: created.token, body: {} }), 40300, 403);
    expectError(await second.api.get('/api/v2/admin/users', { token: created.token }), 40100, 401);
    expect((await second.api.get('/api/v2/client/access-tokens', { token: client.token })).body.code).toBe(0);
    await second.deps.operations?.requestLog.flush();
    const logged = await eventually(async () => {
      const rows = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE user_id = $1`, [client.id]);
      return (rows[0]?.n ?? 0) >= 3 ? true : null;
    });
    expect(logged).toBe(true);
    expect(second.log.join('')).toContain('/api/v2/client/access-tokens');
    for (const text of [await tableText(platform, 'api_request_logs'), second.log.join('')]) {
      expect(text).not.toContain(created.secret);
      expect(text).not.toContain(created.token);
    }
  });
});

async function userEmail(id: number): Promise<string | null> {
  const [row] = await sql<{ email: string | null }>('SELECT email FROM users WHERE id = $1', [id]);
  return row?.email ?? null;
}
