import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { createPluginBinding } from '../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { checkLedgerIntegrity } from '../../domain/billing/integrity/check-ledger-integrity.js';
import { startQrpaySandbox, type QrpaySandbox } from '../../sandbox/qrpay/server.js';
import { TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from '../plugins/payment/qrpay-test-keys.js';
import { startTestPlatform, type TestPlatform } from './platform.js';

export const QRPAY_TEST_APP_ID = 'money-test-app';

export type BillingPlatform = TestPlatform & { qrpay: QrpaySandbox; pluginId: number };

/**
 * The platform with real workers (unless `worker: false`, for files that start no workflow) and
 * the QR gateway sandbox, the qrpay plugin installed, configured against it, enabled and bound as
 * the default payment plugin. The API's public base URL is the test server, so the sandbox's
 * notifications reach our notify route.
 */
export async function startBillingPlatform(env: Record<string, string> = {}, options: { worker?: boolean } = {}): Promise<BillingPlatform> {
  const qrpay = await startQrpaySandbox({ merchantPublicKeyPem: TEST_MERCHANT_PUBLIC_KEY_PEM, appId: QRPAY_TEST_APP_ID, notifyRetryDelaysMs: [200, 500, 1000] });
  const platform = await startTestPlatform({ worker: options.worker ?? true, env: { QRPAY_POLL_INTERVALS_SECONDS: '1,2', ...env } });
  platform.deps.config.publicBaseUrl = platform.baseUrl;
  const plugin = await installPlugin(platform.deps, 'payment', 'qrpay');
  await updatePluginConfig(platform.deps, plugin.id, {
    app_id: QRPAY_TEST_APP_ID,
    gateway_url: qrpay.url,
    merchant_private_key: TEST_MERCHANT_PRIVATE_KEY_PEM,
    gateway_public_key: qrpay.gatewayPublicKeyPem,
    timeout_ms: 5000,
  });
  await enablePlugin(platform.deps, plugin.id);
  await createPluginBinding(platform.deps, { plugin_id: plugin.id, binding_type: 'default', scene: 'default' });
  const close = platform.close.bind(platform);
  return Object.assign(platform, {
    qrpay,
    pluginId: plugin.id,
    async close() {
      await close();
      await qrpay.stop();
    },
  });
}

/** A listed product of the given monthly price (and optional extras). */
export async function createProduct(platform: TestPlatform, monthly = '19.90', extra: Record<string, unknown> = {}) {
  const { ProductMenu, Product } = platform.deps.db.models;
  const menu = await ProductMenu.create({ code: `mnu_${randomBytes(4).toString('hex')}`, name: '云服务器', product_type: 'cloud_server' });
  return Product.create({
    first_product_group_id: menu.id,
    second_product_group_id: null,
    product_group_id: null,
    name: '入门型',
    product_type: 'cloud_server',
    service_type_code: 'cloud_server',
    pricing: { monthly, annually: '199.00' },
    config_options: [],
    ...extra,
  });
}

export type TestClient = { id: number; token: string };

export async function registerClient(platform: TestPlatform): Promise<TestClient> {
  const res = await platform.api.post('/api/v2/client/register', {
    body: { email: `buyer-${randomBytes(5).toString('hex')}@example.com`, password: 'buyer-password-1' },
  });
  expect(res.body.code).toBe(0);
  return { id: res.body.data.user.id as number, token: res.body.data.access_token as string };
}

/** Admin balance adjustment through the API; answers the response data. */
export async function adjustBalance(platform: TestPlatform, userId: number, amount: string | number, remark = '测试调整') {
  const res = await platform.api.post(`/api/v2/admin/users/${userId}/recharges`, { token: await platform.rootToken(), body: { amount, remark } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data;
}

export async function purchase(platform: TestPlatform, client: TestClient, productId: number, body: Record<string, unknown> = {}) {
  const res = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: productId, billing_period: 'monthly', ...body } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data;
}

export async function balanceOf(platform: TestPlatform, client: TestClient): Promise<string> {
  const res = await platform.api.get('/api/v2/client/balance', { token: client.token });
  return res.body.data.balance as string;
}

/** Every money invariant holds (domain check and its admin route agree). */
export async function expectBooksBalanced(platform: TestPlatform): Promise<void> {
  const violations = await checkLedgerIntegrity(platform.deps);
  expect(violations).toEqual([]);
  const res = await platform.api.get('/api/v2/admin/finance/integrity', { token: await platform.rootToken() });
  expect(res.body.data).toMatchObject({ ok: true, total: 0 });
}

/** The sandbox buyer opens the QR code and pays (the gateway then notifies us). */
export async function buyerPays(qrCodeUrl: string): Promise<void> {
  const res = await fetch(`${qrCodeUrl}/pay`, { method: 'POST', headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
}
