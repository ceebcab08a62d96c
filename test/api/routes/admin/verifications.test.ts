import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { idNumber, type IdentityPlatform, scanAndFinish, settles, startIdentityPlatform, verificationCalls } from '../../../helpers/identity.js';

let platform: IdentityPlatform;
const { status, init, freeAttempts } = verificationCalls(() => platform);

beforeAll(async () => {
  platform = await startIdentityPlatform();
});
afterAll(() => platform?.close());

describe('identity rules for admins', () => {
  it('one identity verifies one account; after an admin unbinding it verifies another, and the history is kept', async () => {
    freeAttempts(5);
    const first = await registerClient(platform);
    const second = await registerClient(platform);
    const id = idNumber(20);
    await init(first, id, '陈一');
    await scanAndFinish(platform, first.token, 'pass');
    await settles(async () => {
      expect(await status(first)).toMatchObject({ is_verified: 1 });
    });
    const refused = await init(second, id, '陈一');
    expectError(refused, 40972, 409);
    // The refusal names nobody: neither the other account's id (as a whole number; the envelope's
    // timestamp may contain its digits) nor its e-mail.
    const { timestamp: _answeredAt, ...shown } = refused.body as Record<string, unknown>;
    expect(JSON.stringify(shown)).not.toMatch(new RegExp(`\\b${first.id}\\b|@example`));

    const root = await platform.rootToken();
    expectError(await platform.api.post(`/api/v2/admin/verifications/${first.id}/unbindings`, { token: root, body: {} }), 42200, 422);
    const unbound = await platform.api.post(`/api/v2/admin/verifications/${first.id}/unbindings`, { token: root, body: { reason: '用户申请更换实名' } });
    expect(unbound.body.code, unbound.body.message).toBe(0);
    expectError(await platform.api.post(`/api/v2/admin/verifications/${first.id}/unbindings`, { token: root, body: { reason: '再次' } }), 40975, 409);
    expect(await status(first)).toMatchObject({ is_verified: 0, verification_status: null, verification_id_mask: null });
    const history = await platform.api.get(`/api/v2/admin/verifications/${first.id}/history`, { token: root });
    expect(history.body.data.events.map((e: { event: string }) => e.event)).toEqual(['unbound', 'passed']);
    expect(history.body.data.events[0]).toMatchObject({ reason: '用户申请更换实名', admin_name: 'root', source: 'admin' });

    const again = await init(second, id, '陈一');
    expect(again.body.code, again.body.message).toBe(0);
    await scanAndFinish(platform, second.token, 'pass');
    await settles(async () => {
      expect(await status(second)).toMatchObject({ is_verified: 1 });
    });
    const list = await platform.api.get('/api/v2/admin/verifications', { token: root, query: { status: '2', keyword: String(second.id) } });
    expect(list.body.data.list).toEqual(
      expect.arrayContaining([expect.objectContaining({ user_id: second.id, verification_id_mask: `${id.slice(0, 4)}**********${id.slice(-4)}` })]),
    );
    expect(list.body.data.list.every((u: { verification_status: number }) => u.verification_status === 2)).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(id);
  });

  it('refuses an unknown status and a malformed date with 42200, and an unknown user\'s history with 40400', async () => {
    const root = await platform.rootToken();
    const bad = await platform.api.get('/api/v2/admin/verifications', { token: root, query: { status: '9', date_from: '2026-02-30x' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors).sort()).toEqual(['date_from', 'status']);
    expectError(await platform.api.get('/api/v2/admin/verifications/999999/history', { token: root }), 40400, 404);
    expectError(await platform.api.post('/api/v2/admin/verifications/999999/unbindings', { token: root, body: { reason: '无此人' } }), 40400, 404);
  });
});
