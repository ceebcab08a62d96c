import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_NOT_ALLOWED, tokenScopeRefusal } from '../../api/middleware/personal-tokens.js';
import { documentedRoutes, type DocumentedRoute } from '../helpers/auth-matrix.js';
import { registerClient } from '../helpers/billing.js';
import { registerKnownSecret } from '../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let routes: DocumentedRoute[];

beforeAll(async () => {
  platform = await startTestPlatform();
  routes = await documentedRoutes(platform);
});
afterAll(() => platform?.close());

const SCOPES = ['read', 'purchase', 'console'] as const;

async function tokenWith(clientToken: string, scopes: string[]): Promise<string> {
  const res = await platform.api.post('/api/v2/client/access-tokens', {
    token: clientToken,
    body: { name: `矩阵 ${scopes.join('+')}`, scopes, expires_in_days: 1 },
  });
  expect(res.body.code, res.body.message).toBe(0);
  registerKnownSecret(res.body.data.token as string);
  return res.body.data.token as string;
}

const label = (r: DocumentedRoute) => `${r.method} ${r.path}`;

describe('token scope matrix (every route of the OpenAPI document)', () => {
  it('gives every client route a token scope, GETs read unless closed, writes purchase, console or none', () => {
    const client = routes.filter((r) => r.access.surface === 'client');
    expect(client.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const route of client) {
      const declared = route.access.surface === 'client' ? route.access.tokenScope : undefined;
      if (!['read', 'purchase', 'console', 'none'].includes(route.tokenScope ?? '')) problems.push(`${label(route)}: x-token-scope ${route.tokenScope}`);
      if (declared !== route.tokenScope) problems.push(`${label(route)}: x-access says ${declared}, x-token-scope ${route.tokenScope}`);
      if (route.method !== 'GET' && route.tokenScope === 'read') problems.push(`${label(route)}: a write with scope read`);
    }
    // Account management is never open to a token, whatever the method (a GET defaults to read): password, profile,
    // sessions, the tokens themselves, e-mail and real-name verification, two-factor.
    const account = /\/client\/(auth\/|password|access-tokens|verification\/|two-factor|2fa|totp|mfa|security\/)/;
    for (const route of client) {
      if (account.test(route.path) && route.tokenScope !== 'none') problems.push(`${label(route)}: account management open to tokens (${route.tokenScope})`);
    }
    for (const route of routes.filter((r) => r.access.surface !== 'client')) {
      if (route.tokenScope !== undefined) problems.push(`${label(route)}: x-token-scope on a ${route.access.surface} route`);
    }
    expect(problems).toEqual([]);
  });

  it('closes to tokens exactly the account routes and the writes outside purchase and console', () => {
    const closed = routes.filter((r) => r.tokenScope === 'none').map(label).sort();
    expect(closed).toEqual([
      'DELETE /api/v2/client/access-tokens/{id}',
      'GET /api/v2/client/access-tokens',
      'GET /api/v2/client/auth/2fa',
      'GET /api/v2/client/auth/me',
      'GET /api/v2/client/verification/fee-config',
      'GET /api/v2/client/verification/status',
      'POST /api/v2/client/access-tokens',
      'POST /api/v2/client/auth/2fa/confirm',
      'POST /api/v2/client/auth/2fa/disable',
      'POST /api/v2/client/auth/2fa/enrol',
      'POST /api/v2/client/auth/2fa/verify',
      'POST /api/v2/client/auth/email/verification',
      'POST /api/v2/client/auth/email/verify',
      'POST /api/v2/client/auth/logout',
      'POST /api/v2/client/auth/refresh',
      'POST /api/v2/client/notices/{id}/read',
      'POST /api/v2/client/password',
      'POST /api/v2/client/referral-withdrawals',
      'POST /api/v2/client/tickets',
      'POST /api/v2/client/tickets/attachments',
      'POST /api/v2/client/tickets/{id}/close',
      'POST /api/v2/client/tickets/{id}/reply',
      'POST /api/v2/client/verification/init',
      'POST /api/v2/client/verification/qrcode',
      'POST /api/v2/client/verification/restart',
    ]);
  });

  it('refuses a token without the route\'s scope (40300), lets one with it through, and refuses every token on the admin surface (40100)', async () => {
    const client = await registerClient(platform);
    const single = Object.fromEntries(await Promise.all(SCOPES.map(async (s) => [s, await tokenWith(client.token, [s])] as const)));
    const all = await tokenWith(client.token, [...SCOPES]);
    const mismatches: string[] = [];
    const call = (route: DocumentedRoute, token: string) =>
      platform.api.call(route.method, route.path.replace(/\{[^}]+\}/g, '1'), { token, body: route.method === 'GET' ? undefined : {} });

    for (const route of routes.filter((r) => r.access.surface === 'client')) {
      const scope = route.tokenScope;
      const tokens: Array<[string, string, string[]]> = [...SCOPES.map((s) => [s, single[s] as string, [s]] as [string, string, string[]]), ['all', all, [...SCOPES]]];
      for (const [name, token, held] of tokens) {
        const res = await call(route, token);
        const got = `${res.status}/${res.body.code} ${res.body.message}`;
        if (scope === 'none') {
          if (res.body.code !== 40300 || res.body.message !== TOKEN_NOT_ALLOWED) mismatches.push(`${label(route)} [${name}] → ${got}, expected refusal of every token`);
        } else if (held.includes(scope as string)) {
          const refusedByAccess = res.body.code === 40100 || (res.body.code === 40300 && [TOKEN_NOT_ALLOWED, tokenScopeRefusal(scope as string)].includes(res.body.message));
          if (refusedByAccess) mismatches.push(`${label(route)} [${name}] → ${got}, expected to pass the access check`);
        } else if (res.body.code !== 40300 || res.body.message !== tokenScopeRefusal(scope as string)) {
          mismatches.push(`${label(route)} [${name}] → ${got}, expected 40300 for scope ${scope}`);
        }
      }
    }
    for (const route of routes.filter((r) => r.access.surface === 'admin')) {
      const res = await call(route, all);
      if (res.body.code !== 40100 || res.status !== 401) mismatches.push(`${label(route)} [all scopes] → ${res.status}/${res.body.code}, expected 40100`);
    }
    expect(mismatches).toEqual([]);
  });
});
