import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformApiError, type PlatformClient, unwrap } from '../../sdk/index.js';
import { createProduct, expectBooksBalanced } from '../helpers/billing.js';
import { ROOT_ADMIN, startTestPlatform, type TestPlatform } from '../helpers/platform.js';

// The published client (sdk/) against the real API, one journey per surface: a route or schema
// change that breaks consumers fails to compile here or fails these calls.
let platform: TestPlatform;
let site: PlatformClient;
let admin: PlatformClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  site = createPlatformClient(platform.baseUrl);
  const login = await unwrap(site.POST('/api/v2/admin/login', { body: ROOT_ADMIN }));
  // The login answer is a union: a challenge where a second factor is on (not for root).
  if (login.two_factor_required) throw new Error('root has no second factor');
  admin = createPlatformClient(platform.baseUrl, login.access_token);
});
afterAll(() => platform?.close());

/** A failed call's error, for asserting on it. */
async function failure(call: Promise<unknown>): Promise<PlatformApiError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformApiError);
  return err as PlatformApiError;
}

const PASSWORD = 'sdk-password-1';

async function registerClient(): Promise<{ id: number; email: string; client: PlatformClient }> {
  const email = `sdk-${randomBytes(5).toString('hex')}@example.com`;
  const registered = await unwrap(site.POST('/api/v2/client/register', { body: { email, password: PASSWORD } }));
  return { id: registered.user.id, email, client: createPlatformClient(platform.baseUrl, registered.access_token) };
}

describe('site surface', () => {
  it('quotes a listed product anonymously and reports an unknown one as 40400', async () => {
    const product = await createProduct(platform, '19.90');
    const quote = await unwrap(
      site.POST('/api/v2/site/products/{productId}/quote', { params: { path: { productId: product.id } }, body: { billing_period: 'monthly', quantity: 2 } }),
    );
    expect(quote).toMatchObject({ product_id: product.id, billing_period: 'monthly', quantity: 2, total_amount: '39.80', currency: 'CNY' });

    const missing = await failure(
      unwrap(site.POST('/api/v2/site/products/{productId}/quote', { params: { path: { productId: product.id + 100_000 } }, body: { billing_period: 'monthly' } })),
    );
    expect([missing.status, missing.code]).toEqual([404, 40400]);
  });
});

describe('admin surface', () => {
  it('recharges a user, which the user then sees as balance', async () => {
    const { id, client } = await registerClient();
    const recharge = await unwrap(
      admin.POST('/api/v2/admin/users/{user}/recharges', { params: { path: { user: id } }, body: { amount: '25.50', remark: 'SDK 充值' } }),
    );
    expect(recharge).toMatchObject({ status: 'succeeded', detail: { type: 'admin_recharge', user: { id }, adjustment: { amount: '25.50', balance_after: '25.50' } } });
    expect((await unwrap(client.GET('/api/v2/client/balance'))).balance).toBe('25.50');

    const refused = await failure(unwrap(client.POST('/api/v2/admin/users/{user}/recharges', { params: { path: { user: id } }, body: { amount: '1.00', remark: 'x' } })));
    expect([refused.status, refused.code]).toEqual([403, 40300]);
  });
});

describe('client surface', () => {
  it('logs in, buys a product and pays the invoice from the balance (the docs/api.md example)', async () => {
    const product = await createProduct(platform, '19.90');
    const { id, email } = await registerClient();
    const login = await unwrap(site.POST('/api/v2/client/login', { body: { account: email, password: PASSWORD } }));
    if (login.two_factor_required) throw new Error('a second step is needed (two-factor sign-in is on)');
    const client = createPlatformClient(platform.baseUrl, login.access_token);
    const invoice = await unwrap(client.POST('/api/v2/client/invoices', { body: { product_id: product.id, billing_period: 'monthly' } }));
    expect(invoice).toMatchObject({ type: 'purchase', status: 'unpaid', amount: '19.90' });

    const short = await failure(unwrap(client.POST('/api/v2/client/invoices/{id}/pay/balance', { params: { path: { id: invoice.id } } })));
    expect([short.status, short.code]).toEqual([409, 40911]);

    await unwrap(admin.POST('/api/v2/admin/users/{user}/recharges', { params: { path: { user: id } }, body: { amount: '30.00', remark: 'SDK 充值' } }));
    const paid = await unwrap(client.POST('/api/v2/client/invoices/{id}/pay/balance', { params: { path: { id: invoice.id } } }));
    expect(paid).toMatchObject({ id: invoice.id, status: 'paid', balance_amount: '19.90', payment_channel: 'balance' });
    expect((await unwrap(client.GET('/api/v2/client/balance'))).balance).toBe('10.10');
    expect((await unwrap(client.GET('/api/v2/client/invoices/{id}', { params: { path: { id: invoice.id } } }))).status).toBe('paid');
    await expectBooksBalanced(platform);
  });

  it('is refused without a token with 40100', async () => {
    const anonymous = await failure(unwrap(site.GET('/api/v2/client/balance')));
    expect([anonymous.status, anonymous.code]).toEqual([401, 40100]);
  });
});
