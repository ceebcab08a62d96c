import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustBalance, registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

/** The ledger integrity check an admin runs; every money test also asserts it (expectBooksBalanced). */
let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

const PATH = '/api/v2/admin/finance/integrity';

describe('GET /api/v2/admin/finance/integrity', () => {
  it('finds every rule holding after a balance adjustment, for everyone and for one user', async () => {
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '25.00');
    const all = await platform.api.get(PATH, { token });
    expect(all.body.data).toMatchObject({ ok: true, total: 0, violations: [] });
    expect(all.body.data.rules).toBeGreaterThan(0);
    expect(all.body.data.checked_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const one = await platform.api.get(PATH, { token, query: { user_id: client.id } });
    expect(one.body.data).toMatchObject({ ok: true, total: 0, rules: all.body.data.rules });
  });

  it('refuses a user id that is not a positive integer (42200)', async () => {
    expectError(await platform.api.get(PATH, { token, query: { user_id: 'abc' } }), 42200, 422);
    expectError(await platform.api.get(PATH, { token, query: { user_id: 0 } }), 42200, 422);
  });
});
