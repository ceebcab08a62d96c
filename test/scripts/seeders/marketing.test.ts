import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_CLIENT, seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedDemoMarketing } from '../../../scripts/seeders/marketing.js';
import { sqlOne } from '../../../db/sql.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  await seedDemoData(platform.deps);
  await seedDemoCatalogue(platform.deps);
});
afterAll(() => platform?.close());

describe('demo marketing seeder', () => {
  it('seeds a level, a coupon, a campaign and a referral pair with a pending commission, once', async () => {
    const first = await seedDemoMarketing(platform.deps);
    expect(first).toEqual(['member_level:金牌会员', 'coupon:WELCOME10', 'coupon_campaign:开业活动', expect.stringMatching(/^referral:/)]);
    expect(await seedDemoMarketing(platform.deps)).toEqual([]);
    const demo = await platform.deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
    const account = await sqlOne<{ pending_amount: string }>(platform.deps, 'SELECT pending_amount FROM referral_accounts WHERE user_id = $1', [demo!.id]);
    expect(Number(account?.pending_amount)).toBeGreaterThan(0);
    expect(await checkLedgerIntegrity(platform.deps)).toEqual([]);
  });
});
