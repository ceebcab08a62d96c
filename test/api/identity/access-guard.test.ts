import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireVerified } from '../../../domain/access/require-verified.js';
import { expectError } from '../../helpers/http.js';
import { createProduct, registerClient } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

function requireFor(email: string[], realName: string[]) {
  platform.deps.config.access.emailRequiredFor = email as never;
  platform.deps.config.access.realNameRequiredFor = realName as never;
}

describe('the 40301 guard (settings decide which actions need a verified e-mail or real name)', () => {
  it('lets everything through when nothing is required', async () => {
    requireFor([], []);
    const client = await registerClient(platform);
    const recharge = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '10.00' } });
    expect(recharge.body.code).not.toBe(40301);
    await expect(requireVerified(platform.deps, client.id, 'withdrawal')).resolves.toBeUndefined();
  });

  it('answers 40301 on purchase and recharge, naming what is missing, until the user has it', async () => {
    requireFor(['purchase', 'recharge'], ['recharge']);
    const client = await registerClient(platform);
    const product = await createProduct(platform);
    const buy = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: product.id, billing_period: 'monthly' } });
    expectError(buy, 40301, 403);
    expect(buy.body.data).toMatchObject({ action: 'purchase', required: ['email'] });
    const recharge = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '10.00' } });
    expectError(recharge, 40301, 403);
    expect(recharge.body.data).toMatchObject({ action: 'recharge', required: ['email', 'real_name'] });
    // The guard runs before the body is looked at: an invalid body still answers 40301.
    expectError(await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: 'x' } }), 40301, 403);

    await platform.deps.db.read('UPDATE users SET email_verified_at = now() WHERE id = $1 RETURNING id', [client.id]);
    const bought = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: product.id, billing_period: 'monthly' } });
    expect(bought.body.code, bought.body.message).toBe(0);
    const still = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '10.00' } });
    expect(still.body.data).toMatchObject({ required: ['real_name'] });
    await platform.deps.db.read('UPDATE users SET is_verified = 1, verification_status = 2 WHERE id = $1 RETURNING id', [client.id]);
    const recharged = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '10.00' } });
    expect(recharged.body.code).not.toBe(40301);
  });

  it('is the function the withdrawal and ticket routes call', async () => {
    requireFor(['ticket'], ['withdrawal']);
    const client = await registerClient(platform);
    await expect(requireVerified(platform.deps, client.id, 'ticket')).rejects.toMatchObject({ code: 40301, data: { required: ['email'] } });
    await expect(requireVerified(platform.deps, client.id, 'withdrawal')).rejects.toMatchObject({ code: 40301, data: { required: ['real_name'] } });
    await expect(requireVerified(platform.deps, client.id, 'purchase')).resolves.toBeUndefined();
  });
});
