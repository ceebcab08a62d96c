import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TWO_FACTOR_ADMIN, seedTwoFactorAdmin } from '../../../scripts/seeders/security.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('two-factor demo admin seeder', () => {
  it('creates an admin with a confirmed second factor once, whose printed password and secret sign in in two steps', async () => {
    const seeded = await seedTwoFactorAdmin(platform.deps);
    expect(seeded).toMatchObject({ username: DEMO_TWO_FACTOR_ADMIN });
    expect(await seedTwoFactorAdmin(platform.deps)).toBeNull();
    if (!seeded) return;
    const first = await platform.api.post('/api/v2/admin/login', { body: { username: seeded.username, password: seeded.password } });
    expect(first.body.data.two_factor_required).toBe(true);
    const totp = new TOTP({ secret: Secret.fromBase32(seeded.secret) });
    // The seeder's confirmation spent the current step: the next one is accepted.
    const otp = totp.generate({ timestamp: Date.now() + 30_000 });
    const second = await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token, otp } });
    expect(second.body.code).toBe(0);
    expect(second.body.data.admin.username).toBe(DEMO_TWO_FACTOR_ADMIN);
    const credential = await platform.deps.db.models.TwoFactorCredential.findOne({ where: { surface: 'admin', subject_id: second.body.data.admin.id } });
    expect(credential?.secret_sealed).not.toContain(seeded.secret);
  });
});
