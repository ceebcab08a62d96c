import type { TestPlatform } from './platform.js';

export type RouteAccess =
  | { surface: 'public' }
  | { surface: 'admin'; permission?: string }
  | { surface: 'client'; precondition?: string; tokenScope?: string };

/** `tokenScope`: the operation's `x-token-scope` (client routes only). */
export type DocumentedRoute = { method: string; path: string; access: RouteAccess; tokenScope?: string };

type OpenApiDocument = { paths: Record<string, Record<string, { 'x-access'?: RouteAccess; 'x-token-scope'?: string }>> };

/** Every route of the OpenAPI document with its declared access rule. */
export async function documentedRoutes(platform: TestPlatform): Promise<DocumentedRoute[]> {
  const res = await fetch(`${platform.baseUrl}/api/openapi.json`);
  const doc = (await res.json()) as OpenApiDocument;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      access: op['x-access'] ?? { surface: 'public' },
      ...(op['x-token-scope'] !== undefined ? { tokenScope: op['x-token-scope'] } : {}),
    })),
  );
}

export type MatrixTokens = { client: string; admin: string; adminWithoutPermissions: string };

/** A client, the root admin, and an admin whose role holds no permission at all. */
export async function matrixTokens(platform: TestPlatform): Promise<MatrixTokens> {
  const { api } = platform;
  const admin = await platform.rootToken();
  const email = `matrix-${platform.id}@example.com`;
  const reg = await api.post('/api/v2/client/register', { body: { email, password: 'matrix-password-1' } });
  const role = await api.post('/api/v2/admin/auth/roles', {
    token: admin,
    body: { code: `none_${platform.id}`, name: '无权限', permissions: [] },
  });
  await api.post('/api/v2/admin/auth/admins', {
    token: admin,
    body: { username: `noperm_${platform.id}`, password: 'noperm-password-1', role_id: role.body.data.id },
  });
  const login = await api.post('/api/v2/admin/login', {
    body: { username: `noperm_${platform.id}`, password: 'noperm-password-1' },
  });
  return { client: reg.body.data.access_token, admin, adminWithoutPermissions: login.body.data.access_token };
}

/**
 * Runs the auth matrix on the given routes: anonymous → 40100, the other surface's token →
 * 40300, an admin without the route's permission → 40300, and (when the platform requires a
 * verified e-mail or real name for every action, `ACCESS_*_REQUIRED_FOR`) an unverified client on
 * a route with a precondition → 40301. Returns every mismatch found.
 */
export async function runAuthMatrix(platform: TestPlatform, routes: DocumentedRoute[], tokens: MatrixTokens) {
  const mismatches: string[] = [];
  const check = async (route: DocumentedRoute, label: string, token: string | undefined, code: number, status: number) => {
    const path = route.path.replace(/\{[^}]+\}/g, '1');
    const res = await platform.api.call(route.method, path, { token, body: route.method === 'GET' ? undefined : {} });
    if (res.body.code !== code || res.status !== status) {
      mismatches.push(`${route.method} ${route.path} [${label}] → ${res.status}/${res.body.code}, expected ${status}/${code}`);
    }
  };
  for (const route of routes) {
    if (route.access.surface === 'public') continue;
    await check(route, 'anonymous', undefined, 40100, 401);
    await check(route, 'garbage token', 'not-a-token', 40100, 401);
    const other = route.access.surface === 'admin' ? tokens.client : tokens.admin;
    await check(route, 'other surface', other, 40300, 403);
    if (route.access.surface === 'admin' && route.access.permission) {
      await check(route, `without ${route.access.permission}`, tokens.adminWithoutPermissions, 40300, 403);
    }
    const precondition = route.access.surface === 'client' ? route.access.precondition : undefined;
    if (precondition && platform.deps.config.access.emailRequiredFor.includes(precondition as never)) {
      await check(route, `unverified for ${precondition}`, tokens.client, 40301, 403);
    }
  }
  return mismatches;
}
