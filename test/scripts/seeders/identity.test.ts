import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PENDING_CLIENT, DEMO_VERIFIED_CLIENT, seedIdentityDemo } from '../../../scripts/seeders/identity.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('verification demo seeder', () => {
  it('creates a verified and a pending demo user once, with masks only in clear', async () => {
    expect(await seedIdentityDemo(platform.deps)).toHaveLength(2);
    expect(await seedIdentityDemo(platform.deps)).toEqual([]);
    const login = await platform.api.post('/api/v2/client/login', { body: { account: DEMO_VERIFIED_CLIENT.email, password: DEMO_VERIFIED_CLIENT.password } });
    const verified = await platform.api.get('/api/v2/client/verification/status', { token: login.body.data.access_token });
    expect(verified.body.data).toMatchObject({ is_verified: 1, verification_status: 2, verification_name_mask: '张*', verification_id_mask: '1101**********002X' });
    const pendingLogin = await platform.api.post('/api/v2/client/login', { body: { account: DEMO_PENDING_CLIENT.email, password: DEMO_PENDING_CLIENT.password } });
    const pending = await platform.api.get('/api/v2/client/verification/status', { token: pendingLogin.body.data.access_token });
    expect(pending.body.data).toMatchObject({ is_verified: 0, verification_status: 1, attempt: { status: 'pending' } });
    const rows = await platform.deps.db.read<{ n: number }>('SELECT count(*)::int AS n FROM verification_attempts WHERE name_sealed LIKE $1 OR id_number_sealed LIKE $2', [
      `%${DEMO_VERIFIED_CLIENT.name}%`,
      `%${DEMO_VERIFIED_CLIENT.idNumber}%`,
    ]);
    expect(rows[0]?.n).toBe(0);
  });
});
