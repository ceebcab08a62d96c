import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type ApiResponse } from '../helpers/http.js';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform, type TestClient } from '../helpers/billing.js';

let platform: BillingPlatform;
let productId: number;

beforeAll(async () => {
  platform = await startBillingPlatform();
  productId = (await createProduct(platform, '19.90')).id;
});
afterAll(() => platform?.close());

const INVOICES = '/api/v2/client/invoices';

function createInvoice(client: TestClient, key: string | null, body: Record<string, unknown> = { product_id: productId, billing_period: 'monthly' }) {
  return platform.api.post(INVOICES, { token: client.token, body, headers: key === null ? {} : { 'Idempotency-Key': key } });
}

function payByBalance(client: TestClient, invoiceId: number, key: string) {
  return platform.api.post(`${INVOICES}/${invoiceId}/pay/balance`, { token: client.token, headers: { 'Idempotency-Key': key } });
}

const invoiceCount = (client: TestClient) => platform.deps.db.models.Invoice.count({ where: { user_id: client.id } });
const replayed = (res: ApiResponse) => res.headers.get('idempotent-replayed');

describe('Idempotency-Key on creating POSTs', () => {
  it('answers the same key and body with the first answer again, creating one invoice', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    const first = await createInvoice(client, key, { product_id: productId, billing_period: 'monthly', quantity: 2 });
    expect(first.body.code, first.body.message).toBe(0);
    expect(replayed(first)).toBeNull();
    // The same content in another key order and layout is the same request.
    const again = await platform.api.post(INVOICES, {
      token: client.token,
      rawBody: `{ "quantity": 2,\n  "billing_period": "monthly", "product_id": ${productId} }`,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
    });
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
    expect(replayed(again)).toBe('true');
    expect(await invoiceCount(client)).toBe(1);
    expect(await platform.deps.db.models.Order.count({ where: { user_id: client.id } })).toBe(1);

    // Without the header nothing changed: every request creates.
    expect((await createInvoice(client, null)).body.code).toBe(0);
    expect((await createInvoice(client, null)).body.code).toBe(0);
    expect(await invoiceCount(client)).toBe(3);
  });

  it('refuses the same key with another body or on another route with 42200 naming the header, changing nothing', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    const first = await createInvoice(client, key);
    expect(first.body.code).toBe(0);

    const other = await createInvoice(client, key, { product_id: productId, billing_period: 'annually' });
    expectError(other, 42200, 422);
    expect(Object.keys(other.body.data.errors)).toEqual(['Idempotency-Key']);
    expect(other.body.data.errors['Idempotency-Key'][0]).toContain('另一个请求');

    const elsewhere = await payByBalance(client, first.body.data.id as number, key);
    expectError(elsewhere, 42200, 422);
    expect(elsewhere.body.data.errors['Idempotency-Key']).toHaveLength(1);
    expect(await invoiceCount(client)).toBe(1);
    expect((await platform.deps.db.models.Invoice.findByPk(first.body.data.id as number))?.status).toBe('unpaid');
  });

  it('runs ten concurrent balance payments under one key once: the others get the stored answer or 40920', async () => {
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '100.00');
    const invoice = await purchase(platform, client, productId);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => payByBalance(client, invoice.id as number, key)));

    const fresh = answers.filter((r) => r.status === 200 && replayed(r) === null);
    expect(fresh).toHaveLength(1);
    const first = fresh[0] as ApiResponse;
    expect(first.body.data).toMatchObject({ status: 'paid', payment_channel: 'balance' });
    for (const res of answers) {
      if (res === first) continue;
      // Without the key the others would be 40910 (already paid): none ran the payment again.
      if (res.status === 200) {
        expect(replayed(res)).toBe('true');
        expect(res.raw).toBe(first.raw);
      } else {
        expectError(res, 40920, 409);
      }
    }
    const settled = await payByBalance(client, invoice.id as number, key);
    expect(settled.raw).toBe(first.raw);
    expect(replayed(settled)).toBe('true');

    expect(await balanceOf(platform, client)).toBe('80.10');
    expect(await platform.deps.db.models.AccountTransaction.count({ where: { user_id: client.id, invoice_id: invoice.id, type: 'payment' } })).toBe(1);
    await expectBooksBalanced(platform);
  });

  it('keeps keys per user: another user’s identical key is independent', async () => {
    const alice = await registerClient(platform);
    const bob = await registerClient(platform);
    const key = randomUUID();
    const fromAlice = await createInvoice(alice, key);
    const fromBob = await createInvoice(bob, key);
    expect([fromAlice.body.code, fromBob.body.code]).toEqual([0, 0]);
    expect(replayed(fromBob)).toBeNull();
    expect(fromBob.body.data.id).not.toBe(fromAlice.body.data.id);
    expect([await invoiceCount(alice), await invoiceCount(bob)]).toEqual([1, 1]);
  });

  it('treats a key older than 24 hours as unused', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    expect((await createInvoice(client, key)).body.code).toBe(0);
    const { IdempotencyKey } = platform.deps.db.models;
    const row = await IdempotencyKey.findOne({ where: { scope: `client:${client.id}`, key } });
    expect(row?.state).toBe('done');
    // Kept for 24 hours from the first use.
    expect(Math.round(((row?.expires_at.getTime() ?? 0) - (row?.created_at.getTime() ?? 0)) / 3_600_000)).toBe(24);

    await IdempotencyKey.update({ expires_at: new Date(Date.now() - 1000) }, { where: { scope: `client:${client.id}`, key } });
    const anew = await createInvoice(client, key, { product_id: productId, billing_period: 'annually' });
    expect(anew.body.code).toBe(0);
    expect(replayed(anew)).toBeNull();
    expect(anew.body.data.amount).toBe('199.00');
    expect(await invoiceCount(client)).toBe(2);
    // And the key now answers its new first result.
    const again = await createInvoice(client, key, { product_id: productId, billing_period: 'annually' });
    expect(again.raw).toBe(anew.raw);
    expect(await invoiceCount(client)).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['holding a control character', 'a\tb'],
  ])('refuses a key %s with 42200 naming the header, creating nothing', async (_what, key) => {
    const client = await registerClient(platform);
    const res = await createInvoice(client, key);
    expectError(res, 42200, 422);
    expect(res.body.data.errors['Idempotency-Key'][0]).toContain('1 到 255');
    expect(await invoiceCount(client)).toBe(0);
    expect(await platform.deps.db.models.IdempotencyKey.count({ where: { scope: `client:${client.id}` } })).toBe(0);
  });

  it('accepts a key of 255 printable ASCII characters', async () => {
    const client = await registerClient(platform);
    const key = `${'~ !'.repeat(85)}`;
    expect(key).toHaveLength(255);
    expect((await createInvoice(client, key)).body.code).toBe(0);
    expect(replayed(await createInvoice(client, key))).toBe('true');
    expect(await invoiceCount(client)).toBe(1);
  });

  it('replays a refusal too; a new key runs again', async () => {
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, productId);
    const key = randomUUID();
    const refused = await payByBalance(client, invoice.id as number, key);
    expectError(refused, 40911, 409);
    await adjustBalance(platform, client.id, '50.00');
    const again = await payByBalance(client, invoice.id as number, key);
    expect(again.raw).toBe(refused.raw);
    expect(replayed(again)).toBe('true');
    const paid = await payByBalance(client, invoice.id as number, randomUUID());
    expect(paid.body.data.status).toBe('paid');
  });

  it('does not keep a validation refusal: the corrected request may use the same key', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    const refused = await createInvoice(client, key, { product_id: productId, billing_period: 'monthly', quantity: 'two' });
    expectError(refused, 42200, 422);
    expect(Object.keys(refused.body.data.errors)).toEqual(['quantity']);
    const corrected = await createInvoice(client, key, { product_id: productId, billing_period: 'monthly', quantity: 2 });
    expect(corrected.body.code, corrected.body.message).toBe(0);
    expect(replayed(corrected)).toBeNull();
    expect(await invoiceCount(client)).toBe(1);
  });

  it('gives the key back after a server error, so the same request may be retried with it', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    platform.qrpay.control.failNext('qrpay.trade.precreate', 1, { mode: 'http500' });
    const failed = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '30.00' }, headers: { 'Idempotency-Key': key } });
    expectError(failed, 50300, 503);
    expect(await platform.deps.db.models.IdempotencyKey.count({ where: { scope: `client:${client.id}`, key } })).toBe(0);

    const retried = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '30.00' }, headers: { 'Idempotency-Key': key } });
    expect(retried.body.code, retried.body.message).toBe(0);
    expect(replayed(retried)).toBeNull();
    const replay = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '30.00' }, headers: { 'Idempotency-Key': key } });
    expect(replay.raw).toBe(retried.raw);
    expect(replay.body.data.payment.qr_code_url).toBe(retried.body.data.payment.qr_code_url);
    const created = await platform.deps.db.models.Payment.count({ where: { user_id: client.id, status: 'pending' } });
    expect(created).toBe(1);
  });

  it('answers 40920 while the first request holds the key, and lets a claim abandoned by a crash be taken over', async () => {
    const client = await registerClient(platform);
    const key = randomUUID();
    expect((await createInvoice(client, key)).body.code).toBe(0);
    const { IdempotencyKey } = platform.deps.db.models;
    const where = { scope: `client:${client.id}`, key };
    // As if the process died between the claim and storing the answer.
    await IdempotencyKey.update({ state: 'in_progress', response_status: null, response_body: null, completed_at: null, claimed_at: new Date(Date.now() - 60_000) }, { where });
    expectError(await createInvoice(client, key), 40920, 409);
    expect(await invoiceCount(client)).toBe(1);

    await IdempotencyKey.update({ claimed_at: new Date(Date.now() - 6 * 60_000) }, { where });
    // Another request under the key is still refused, not allowed to take it over.
    expectError(await createInvoice(client, key, { product_id: productId, billing_period: 'annually' }), 42200, 422);
    const taken = await createInvoice(client, key);
    expect(taken.body.code).toBe(0);
    expect(replayed(taken)).toBeNull();
    expect(await invoiceCount(client)).toBe(2);
    expect((await IdempotencyKey.findOne({ where }))?.state).toBe('done');
  });

  it('is ignored by a route without the option', async () => {
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, productId);
    const key = randomUUID();
    const cancel = () => platform.api.post(`${INVOICES}/${invoice.id}/cancel`, { token: client.token, headers: { 'Idempotency-Key': key } });
    expect((await cancel()).body.code).toBe(0);
    const second = await cancel();
    expectError(second, 40912, 409);
    expect(replayed(second)).toBeNull();
    expect(await platform.deps.db.models.IdempotencyKey.count({ where: { scope: `client:${client.id}` } })).toBe(0);
    // Not even a malformed value is looked at.
    expectError(await platform.api.post(`${INVOICES}/${invoice.id}/cancel`, { token: client.token, headers: { 'Idempotency-Key': '' } }), 40912, 409);
  });

  it('is declared in the OpenAPI document on exactly the creating POSTs, with 40920', async () => {
    type Operation = { parameters?: Array<{ name: string; in: string }>; responses: Record<string, { description: string }> };
    const doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const declared = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key'))
        .map(([method, op]) => {
          expect(op.responses['409']?.description, path).toContain('40920');
          expect(op.responses['422']?.description, path).toContain('42200');
          return `${method.toUpperCase()} ${path}`;
        }),
    );
    expect(declared.sort()).toEqual([
      'POST /api/v2/admin/users',
      'POST /api/v2/client/invoices',
      'POST /api/v2/client/invoices/{id}/pay/balance',
      'POST /api/v2/client/invoices/{id}/pay/qrpay',
      'POST /api/v2/client/recharge',
      'POST /api/v2/client/referral-withdrawals',
      'POST /api/v2/client/services/{id}/renew',
      'POST /api/v2/client/services/{id}/traffic-packages/order',
      'POST /api/v2/client/services/{id}/upgrade',
      'POST /api/v2/client/tickets',
    ]);
  });
});
