import { describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../../../domain/auth/tokens.js';

const key = 'k'.repeat(40);
const claims = { surface: 'admin' as const, subjectId: 7, sessionId: '00000000-0000-4000-8000-000000000007' };

describe('access tokens', () => {
  it('verify to their claims, and a remembered token still stops working when it expires', async () => {
    const token = await signAccessToken(key, claims, new Date(Date.now() + 1500));
    expect(await verifyAccessToken(key, token)).toEqual(claims);
    expect(await verifyAccessToken(key, token)).toEqual(claims);
    await new Promise((r) => setTimeout(r, 1600));
    await expect(verifyAccessToken(key, token)).rejects.toMatchObject({ code: 40100 });
  });

  it('refuses a token signed with another key, even after it was verified under its own', async () => {
    const token = await signAccessToken(key, claims, new Date(Date.now() + 60_000));
    await verifyAccessToken(key, token);
    await expect(verifyAccessToken('z'.repeat(40), token)).rejects.toMatchObject({ code: 40100 });
  });

  it('refuses an already expired token', async () => {
    const token = await signAccessToken(key, claims, new Date(Date.now() - 1000));
    await expect(verifyAccessToken(key, token)).rejects.toMatchObject({ code: 40100, message: '登录已过期，请重新登录' });
  });
});
