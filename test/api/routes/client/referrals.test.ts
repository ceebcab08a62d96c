import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { marketingCalls } from '../../../helpers/marketing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const { admin } = marketingCalls(() => ({ platform, root }));

describe('client referral withdrawals', () => {
  it('the withdrawal limits come from the referral settings group', async () => {
    await admin('post', '/api/v2/admin/settings', { values: { 'referral.withdrawal_min': '50.00' } });
    try {
      const client = await registerClient(platform);
      const res = await platform.api.post('/api/v2/client/referral-withdrawals', { token: client.token, body: { amount: '20.00', method: 'balance' } });
      expectError(res, 42200, 422);
      expect(res.body.data.errors.amount[0]).toContain('50.00');
    } finally {
      await admin('post', '/api/v2/admin/settings', { values: { 'referral.withdrawal_min': '10.00' } });
    }
  });
});
