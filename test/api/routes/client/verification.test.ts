import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { idNumber, type IdentityPlatform, scanAndFinish, settles, startIdentityPlatform, verificationCalls } from '../../../helpers/identity.js';
import { registerClient } from '../../../helpers/billing.js';

let platform: IdentityPlatform;

beforeAll(async () => {
  platform = await startIdentityPlatform();
});
afterAll(() => platform?.close());

const { status, init, freeAttempts } = verificationCalls(() => platform);

describe('real-name verification attempts', () => {
  it('fails: the provider says no, the user shows failed with a reason; a new attempt then costs the fee', async () => {
    freeAttempts(1, '5.00');
    const client = await registerClient(platform);
    const started = await init(client, idNumber(2), '李四');
    expect(started.body.code).toBe(0);
    await scanAndFinish(platform, client.token, 'fail', 'ID_MISMATCH');
    await settles(async () => { expect(await status(client)).toMatchObject({ is_verified: 0, verification_status: 3, attempt: { status: 'failed', reason_code: 'identity_mismatch' } }); });
    expectError(await platform.api.post('/api/v2/client/verification/restart', { token: client.token }), 40973, 409);
    const fees = await platform.api.get('/api/v2/client/verification/fee-config', { token: client.token });
    expect(fees.body.data).toMatchObject({ remaining_free_attempts: 0, next_attempt_fee: '5.00' });
  });

  it('limits free restarts of one attempt', async () => {
    freeAttempts(5);
    const client = await registerClient(platform);
    await init(client, idNumber(5), '孙五');
    for (let i = 0; i < 5; i++) expect((await platform.api.post('/api/v2/client/verification/restart', { token: client.token })).body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/client/verification/restart', { token: client.token }), 40973, 409);
    const attempts = await platform.deps.db.read<{ status: string }>('SELECT status FROM verification_attempts WHERE user_id = $1 ORDER BY id', [client.id]);
    expect(attempts.map((a) => a.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled', 'pending']);
  });
});

describe('callbacks', () => {
  it('refuses a forged, replayed or stale callback before anything else (40001, HTTP 401) and changes nothing', async () => {
    freeAttempts(5);
    const client = await registerClient(platform);
    const started = await init(client, idNumber(10), '钱七');
    const certifyId = started.body.data.certify_id as string;
    const forged = await platform.certify.control.sendCallback(certifyId, { secret: 'not-the-secret' });
    expect(forged?.http_status).toBe(401);
    const stale = await platform.certify.control.sendCallback(certifyId, { timestampOffsetSeconds: -3600 });
    expect(stale?.http_status).toBe(401);
    const genuine = await platform.certify.control.sendCallback(certifyId);
    expect(genuine?.http_status).toBe(200);
    const index = platform.certify.control.callbacks().length - 1;
    const replay = await platform.certify.control.replayCallback(index);
    expect(replay?.http_status).toBe(401);
    // Unsigned and garbage requests: 401 with the envelope, also for GET.
    const bare = await platform.api.post('/api/v2/client/verification/callback', { body: { certify_id: certifyId } });
    expectError(bare, 40001, 401);
    const get = await platform.api.get('/api/v2/client/verification/callback', { query: { certify_id: certifyId } });
    expectError(get, 40001, 401);
    // The provider has not finished: the hint made the workflow ask, and nothing changed.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await status(client)).attempt).toMatchObject({ status: 'pending' });
    expect((await status(client)).is_verified).toBe(0);
  });

  it('a callback naming another user\'s attempt changes only that attempt; the status route reads the caller only', async () => {
    freeAttempts(5);
    const victim = await registerClient(platform);
    const attacker = await registerClient(platform);
    await init(victim, idNumber(11), '孙八');
    const mine = await init(attacker, idNumber(12), '周九');
    expect(mine.body.code).toBe(0);
    const victimAttempt = (await status(victim)).attempt;
    // The peer's bug: a status route taking the account and certify id from the query. Ours declares none: refused, naming them.
    const probe = await platform.api.get('/api/v2/client/verification/status', {
      token: attacker.token,
      query: { client_id: String(victim.id), certify_id: victimAttempt.certify_id },
    });
    expectError(probe, 42200, 422);
    expect(Object.keys(probe.body.data.errors).sort()).toEqual(['certify_id', 'client_id']);
    expect(JSON.stringify(probe.body.data)).not.toContain(String(victimAttempt.certify_id));
    expect((await status(attacker)).attempt.attempt_no).toBe(mine.body.data.attempt.attempt_no);
    // The attacker's provider session passes; a signed callback for the victim's session changes nothing for either.
    await platform.certify.control.sendCallback(victimAttempt.certify_id as string);
    await scanAndFinish(platform, attacker.token, 'pass');
    await settles(async () => {
      expect(await status(attacker)).toMatchObject({ is_verified: 1 });
    });
    expect(await status(victim)).toMatchObject({ is_verified: 0, verification_status: 1, attempt: { status: 'pending' } });
  });
});

describe('identity rules', () => {
  it('refuses malformed names and ID numbers (check digit) with 42200', async () => {
    const client = await registerClient(platform);
    const bad = `${idNumber(21).slice(0, 17)}${idNumber(21).endsWith('1') ? '2' : '1'}`;
    const res = await init(client, bad, '张三');
    expectError(res, 42200, 422);
    expect(res.body.data.errors.id_number).toBeDefined();
    expectError(await init(client, idNumber(21), 'x'), 42200, 422);
  });
});

describe('the scan relay', () => {
  it('relays only valid tokens of pending attempts, never to an address from the request', async () => {
    freeAttempts(5);
    const client = await registerClient(platform);
    await init(client, idNumber(31), '楚二');
    const qr = await platform.api.post('/api/v2/client/verification/qrcode', { token: client.token });
    const scanUrl = new URL(qr.body.data.scan_url as string);
    const evil = new URL(scanUrl);
    evil.searchParams.set('redirect', 'https://evil.example.com/');
    evil.searchParams.set('url', 'https://evil.example.com/');
    const relayed = await fetch(evil, { redirect: 'manual' });
    expect(relayed.status).toBe(302);
    expect(new URL(relayed.headers.get('location') as string).origin).toBe(platform.certify.baseUrl);
    for (const token of ['', 'x', '0'.repeat(48), 'https://evil.example.com']) {
      const res = await platform.api.get('/api/v2/client/verification/scan', { query: { token } });
      expectError(res, 40400, 404);
    }
    // A newer QR code replaces the older one.
    await platform.api.post('/api/v2/client/verification/qrcode', { token: client.token });
    expectError(await platform.api.get('/api/v2/client/verification/scan', { query: { token: scanUrl.searchParams.get('token') as string } }), 40400, 404);
  });
});

describe('settings', () => {
  // Last in the file: stored values override the defaults the tests above change.
  it('takes fees, free attempts and the action rules from the admin settings route', async () => {
    const root = await platform.rootToken();
    const saved = await platform.api.post('/api/v2/admin/settings', {
      token: root,
      body: { values: { 'verification.free_attempts': 0, 'verification.fee': '3.50', 'access.real_name_required_for': ['recharge'] } },
    });
    expect(saved.body.code, saved.body.message).toBe(0);
    const client = await registerClient(platform);
    const fees = await platform.api.get('/api/v2/client/verification/fee-config', { token: client.token });
    expect(fees.body.data).toMatchObject({ free_attempts: 0, fee: '3.50', next_attempt_fee: '3.50' });
    const recharge = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '10.00' } });
    expectError(recharge, 40301, 403);
    expect(recharge.body.data).toMatchObject({ required: ['real_name'] });
    const bad = await platform.api.post('/api/v2/admin/settings', { token: root, body: { values: { 'access.email_required_for': ['everything'] } } });
    expectError(bad, 42200, 422);
  });
});
