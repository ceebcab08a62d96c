import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRoutes, matrixTokens, runAuthMatrix } from '../helpers/auth-matrix.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  // Every action needs a verified e-mail and real name: routes with a precondition answer 40301 to the matrix's client.
  const all = 'purchase,recharge,withdrawal,ticket';
  platform = await startTestPlatform({ env: { ACCESS_EMAIL_REQUIRED_FOR: all, ACCESS_REALNAME_REQUIRED_FOR: all } });
});
afterAll(() => platform?.close());

describe('auth matrix', () => {
  it('holds for every protected route of the OpenAPI document', async () => {
    const routes = await documentedRoutes(platform);
    const protectedRoutes = routes.filter((r) => r.access.surface !== 'public');
    expect(protectedRoutes.length).toBeGreaterThan(15);
    const mismatches = await runAuthMatrix(platform, protectedRoutes, await matrixTokens(platform));
    expect(mismatches).toEqual([]);
    expect(protectedRoutes.filter((r) => r.access.surface === 'client' && r.access.precondition).map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /api/v2/client/invoices', 'POST /api/v2/client/recharge']),
    );
  });

  it('leaves only the intended routes open', async () => {
    const open = (await documentedRoutes(platform)).filter((r) => r.access.surface === 'public').map((r) => `${r.method} ${r.path}`);
    expect(open.sort()).toEqual([
      'GET /api/health',
      'GET /api/secure-assets/two-factor-qr',
      'GET /api/secure-assets/view',
      'GET /api/v2/client/auth/captcha',
      'GET /api/v2/client/auth/captcha/image',
      'GET /api/v2/client/verification/callback',
      'GET /api/v2/client/verification/qrcode/image',
      'GET /api/v2/client/verification/scan',
      'GET /api/v2/client/vnc-tokens/{token}',
      'GET /api/v2/site/config',
      'GET /api/v2/site/help-articles',
      'GET /api/v2/site/help-articles/categories',
      'GET /api/v2/site/help-articles/{id}',
      'GET /api/v2/site/home',
      'GET /api/v2/site/home-hero',
      'GET /api/v2/site/notices',
      'GET /api/v2/site/notices/categories',
      'GET /api/v2/site/notices/{id}',
      'GET /api/v2/site/product-categories',
      'GET /api/v2/site/product-groups',
      'GET /api/v2/site/product-menus',
      'GET /api/v2/site/product-types',
      'GET /api/v2/site/products',
      'GET /api/v2/site/products/{productId}',
      'POST /api/v2/admin/login',
      'POST /api/v2/admin/login/2fa',
      'POST /api/v2/client/auth/password/reset',
      'POST /api/v2/client/auth/password/reset-code',
      'POST /api/v2/client/login',
      'POST /api/v2/client/login/2fa',
      'POST /api/v2/client/payment/qrpay/notify',
      'POST /api/v2/client/register',
      'POST /api/v2/client/verification/callback',
      'POST /api/v2/site/products/{productId}/quote',
    ]);
  });
});
