import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestClient } from './billing.js';
import type { TestPlatform } from './platform.js';

/**
 * Calls the marketing tests share (coupons, member levels, referrals): an admin call that must
 * succeed, a coupon, a buyer with a referral code, a purchase paid by balance. `session` answers
 * the file's platform and root token once its `beforeAll` has made them.
 */
export function marketingCalls(session: () => { platform: TestPlatform; root: string }) {
  const code = (prefix = 'T') => `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`;

  async function admin(method: 'get' | 'post' | 'put' | 'del', path: string, body?: unknown) {
    const { platform, root } = session();
    const res = await platform.api[method](path, { token: root, ...(body === undefined ? {} : { body }) });
    expect(res.body.code, `${method} ${path}: ${res.body.message} ${JSON.stringify(res.body.data)}`).toBe(0);
    return res.body.data;
  }

  async function createCoupon(body: Record<string, unknown>) {
    return admin('post', '/api/v2/admin/coupons', { code: code(), name: '测试券', kind: 'percent', value: '10', ...body });
  }

  async function registerWithCode(referralCode: string): Promise<TestClient> {
    const res = await session().platform.api.post('/api/v2/client/register', {
      body: { email: `invitee-${randomBytes(5).toString('hex')}@example.com`, password: 'buyer-password-1', referral_code: referralCode },
    });
    expect(res.body.code, res.body.message).toBe(0);
    return { id: res.body.data.user.id as number, token: res.body.data.access_token as string };
  }

  function buy(client: TestClient, productId: number, extra: Record<string, unknown> = {}) {
    return session().platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: productId, billing_period: 'monthly', ...extra } });
  }

  async function payByBalance(client: TestClient, invoiceId: number) {
    const res = await session().platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
    expect(res.body.code, res.body.message).toBe(0);
    return res.body.data;
  }

  async function referralOf(client: TestClient) {
    const res = await session().platform.api.get('/api/v2/client/referral', { token: client.token });
    expect(res.body.code).toBe(0);
    return res.body.data;
  }

  return { admin, buy, code, createCoupon, payByBalance, referralOf, registerWithCode };
}
