import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccessToken } from '../../../scripts/seeders/access-tokens.js';
import { seedDemoData } from '../../../scripts/seeders/demo.js';
import { registerKnownSecret } from '../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  await seedDemoData(platform.deps);
});
afterAll(() => platform?.close());

describe('demo access token seeder', () => {
  it('creates the demo client\'s token once, answers it only then, and the token works on the client surface', async () => {
    const first = await seedDemoAccessToken(platform.deps);
    expect(first.token).toMatch(/^hp_pat_[0-9a-f]{16}_[0-9a-f]{64}$/);
    registerKnownSecret(first.token as string);
    expect(await seedDemoAccessToken(platform.deps)).toEqual({ token: null });
    const services = await platform.api.get('/api/v2/client/services', { token: first.token as string });
    expect(services.body.code, services.body.message).toBe(0);
  });
});
