import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../helpers/billing.js';
import { marketingCalls } from '../../../helpers/marketing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const { createCoupon } = marketingCalls(() => ({ platform, root }));

describe('client coupons', () => {
  it('a client sees their own and public coupons only', async () => {
    const client = await registerClient(platform);
    const other = await registerClient(platform);
    const mine = await createCoupon({ owner_user_id: client.id });
    const theirs = await createCoupon({ owner_user_id: other.id });
    const open = await createCoupon({ is_public: true });
    const list = await platform.api.get('/api/v2/client/coupons', { token: client.token });
    expect(list.body.data.list.map((c: { code: string }) => c.code)).toEqual([mine.code]);
    const pub = await platform.api.get('/api/v2/client/coupons/public', { token: client.token, query: { page_size: '100' } });
    const pubCodes = pub.body.data.list.map((c: { code: string }) => c.code);
    expect(pubCodes).toContain(open.code);
    expect(pubCodes).not.toContain(theirs.code);
  });
});
