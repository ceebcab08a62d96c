import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import type { AppDeps } from '../../../api/context.js';
import { type ServedApp, serveApp } from '../../../api/server.js';
import { AUTH_CHANNEL, createPrincipalCache } from '../../../domain/auth/principal-cache.js';
import { sessionIdOf, warmAuthCache as warm } from '../../helpers/auth-cache.js';
import { type ApiClient, createApiClient, expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let second: { deps: AppDeps; api: ApiClient; served: ServedApp };

beforeAll(async () => {
  platform = await startTestPlatform();
  const deps: AppDeps = {
    ...platform.deps,
    authCache: createPrincipalCache({ databaseUrl: platform.deps.config.databaseUrl, ttlMs: 60_000, logger: platform.deps.logger }),
  };
  const served = await serveApp(createApp(deps), { hostname: '127.0.0.1', port: 0 });
  second = { deps, served, api: createApiClient(`http://127.0.0.1:${served.port}`) };
});
afterAll(async () => {
  await second?.served.stop();
  await second?.deps.authCache?.close();
  await platform?.close();
});

describe('principal cache', () => {
  it('a logout on one API instance ends the session on another whose cache is warm', async () => {
    const reg = await platform.api.post('/api/v2/client/register', { body: { email: 'cache@example.com', password: 'cache-password-1' } });
    const token = reg.body.data.access_token as string;
    await warm(second.api, second.deps, '/api/v2/client/auth/me', token);
    await platform.api.post('/api/v2/client/auth/logout', { token });
    await eventually(async () => ((await second.api.get('/api/v2/client/auth/me', { token })).body.code === 40100 ? true : null));
    expect(second.deps.authCache?.get(sessionIdOf(token))).toBeNull();
  });

  it('a permission removed from a role takes effect on the very next request of the same instance', async () => {
    const root = await platform.rootToken();
    const role = await platform.api.post('/api/v2/admin/auth/roles', { token: root, body: { code: 'cached_viewer', name: '缓存', permissions: ['user.view'] } });
    await platform.api.post('/api/v2/admin/auth/admins', { token: root, body: { username: 'cached1', password: 'cached-password-1', role_id: role.body.data.id } });
    const token = (await platform.api.post('/api/v2/admin/login', { body: { username: 'cached1', password: 'cached-password-1' } })).body.data.access_token;
    await warm(platform.api, platform.deps, '/api/v2/admin/users', token);
    await platform.api.put(`/api/v2/admin/auth/roles/${role.body.data.id}`, { token: root, body: { permissions: [] } });
    expectError(await platform.api.get('/api/v2/admin/users', { token }), 40300, 403);
  });

  it('is bypassed while its listener is disconnected, and reconnects', async () => {
    const reg = await platform.api.post('/api/v2/client/register', { body: { email: 'listener@example.com', password: 'listener-password-1' } });
    const token = reg.body.data.access_token as string;
    await warm(second.api, second.deps, '/api/v2/client/auth/me', token);
    await platform.deps.db.sequelize.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'`,
    );
    await eventually(async () => (second.deps.authCache?.get(sessionIdOf(token)) === null ? true : null));
    await warm(second.api, second.deps, '/api/v2/client/auth/me', token);
  });

  it('does not store a session read before an invalidation that raced it', async () => {
    const reg = await platform.api.post('/api/v2/client/register', { body: { email: 'race@example.com', password: 'race-password-1' } });
    const token = reg.body.data.access_token as string;
    await warm(second.api, second.deps, '/api/v2/client/auth/me', token);
    const cache = second.deps.authCache;
    const principal = cache?.get(sessionIdOf(token));
    if (!cache || !principal) throw new Error('cache not warm');
    const ticket = cache.ticket();
    cache.invalidate({ session_id: principal.sessionId });
    cache.set(ticket, principal, new Date(Date.now() + 3_600_000));
    expect(cache.get(principal.sessionId)).toBeNull();
    cache.set(cache.ticket(), principal, new Date(Date.now() + 3_600_000));
    expect(cache.get(principal.sessionId)).toEqual(principal);
  });

  it('treats an unrecognised notification as "invalidate everything"', async () => {
    const reg = await platform.api.post('/api/v2/client/register', { body: { email: 'garbage@example.com', password: 'garbage-password-1' } });
    const token = reg.body.data.access_token as string;
    await warm(second.api, second.deps, '/api/v2/client/auth/me', token);
    await platform.deps.db.sequelize.query(`SELECT pg_notify('${AUTH_CHANNEL}', '{"bogus":1}')`);
    await eventually(async () => (second.deps.authCache?.get(sessionIdOf(token)) === null ? true : null));
  });
});
