import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchFulfilment } from '../../../../domain/upstream-work/dispatch-fulfilment.js';
import { VERIFICATION_WORKFLOW_TYPE, verificationWorkflowId } from '../../../../workflows/verification/contract.js';
import { recordHistory } from '../../../helpers/histories.js';
import { expectError } from '../../../helpers/http.js';
import { idNumber, type IdentityPlatform, scanAndFinish, settles, startIdentityPlatform } from '../../../helpers/identity.js';
import { adjustBalance, balanceOf, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { captureLogs } from '../../../helpers/vnc.js';

let platform: IdentityPlatform;
let logs: string[];

beforeAll(async () => {
  platform = await startIdentityPlatform();
  logs = captureLogs(platform);
});
afterAll(() => platform?.close());

async function status(client: TestClient) {
  const res = await platform.api.get('/api/v2/client/verification/status', { token: client.token });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data;
}

async function init(client: TestClient, id: string, name = '张三') {
  return platform.api.post('/api/v2/client/verification/init', { token: client.token, body: { name, id_number: id } });
}

function freeAttempts(n: number, fee = '0.00') {
  platform.deps.config.verification.freeAttempts = n;
  platform.deps.config.verification.fee = fee;
}

describe('real-name verification through the certify sandbox', () => {
  it('passes: init answers certify_id, the QR relays to the provider, the callback makes the workflow apply the result once', async () => {
    freeAttempts(1);
    const client = await registerClient(platform);
    const id = idNumber(1);
    const fees = await platform.api.get('/api/v2/client/verification/fee-config', { token: client.token });
    expect(fees.body.data).toMatchObject({ free_attempts: 1, remaining_free_attempts: 1, next_attempt_fee: '0.00' });
    const started = await init(client, id);
    expect(started.body.code, started.body.message).toBe(0);
    expect(started.body.data.certify_id).toMatch(/^CT/);
    expect(started.body.data.attempt).toMatchObject({ status: 'pending', charge: 'free', name_mask: '张*', id_mask: `${id.slice(0, 4)}**********${id.slice(-4)}` });
    expect((await status(client)).verification_status).toBe(1);

    const { qr, provider } = await scanAndFinish(platform, client.token, 'pass');
    expect(provider.callback.http_status).toBe(200);
    const image = await fetch(qr.url);
    expect(image.headers.get('content-type')).toContain('image/svg+xml');
    expect(await image.text()).toContain('<svg');

    await settles(async () => { expect(await status(client)).toMatchObject({ is_verified: 1, verification_status: 2 }); });
    const after = await status(client);
    expect(after).toMatchObject({ verification_name_mask: '张*', verification_id_mask: `${id.slice(0, 4)}**********${id.slice(-4)}`, attempt: { status: 'passed' } });

    const attemptNo = started.body.data.attempt.attempt_no as string;
    const handle = platform.temporal.workflow.getHandle(verificationWorkflowId(attemptNo));
    await expect(handle.result()).resolves.toMatchObject({ outcome: 'passed' });
    await recordHistory(handle, VERIFICATION_WORKFLOW_TYPE, 'callback-passed');
    const history = await platform.api.get(`/api/v2/admin/verifications/${client.id}/history`, { token: await platform.rootToken() });
    expect(history.body.data.events.filter((e: { event: string }) => e.event === 'passed')).toHaveLength(1);

    // Verified: a second init is refused, and no answer or log line holds the ID number or name.
    expectError(await init(client, id), 40970, 409);
    const joined = logs.join('\n');
    expect(joined).not.toContain(id);
    expect(joined).not.toContain('张三');
    const stored = await platform.deps.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM verification_attempts WHERE id_number_sealed LIKE $1 OR name_sealed LIKE '%张三%'`, [`%${id}%`]);
    expect(stored[0]?.n).toBe(0);
  });

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

  it('charges a paid attempt through its own invoice exactly once; a restart is not charged again', async () => {
    freeAttempts(0, '5.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '12.00');
    const started = await init(client, idNumber(3), '王五');
    expect(started.body.code, started.body.message).toBe(0);
    expect(started.body.data).toMatchObject({ certify_id: null, attempt: { status: 'awaiting_payment', charge: 'paid', fee: '5.00' }, invoice: { amount: '5.00' } });
    const invoiceId = started.body.data.invoice.id as number;
    expectError(await init(client, idNumber(3), '王五'), 40974, 409);
    const paid = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
    expect(paid.body.code, paid.body.message).toBe(0);
    await settles(async () => { expect((await status(client)).attempt).toMatchObject({ status: 'pending', certify_id: expect.stringMatching(/^CT/) }); });
    // Dispatching the paid invoice again (relay, backstop) activates nothing twice.
    await dispatchFulfilment(platform.deps, invoiceId);
    await dispatchFulfilment(platform.deps, invoiceId);
    const rows = await platform.deps.db.read<{ n: number }>('SELECT count(*)::int AS n FROM verification_attempts WHERE user_id = $1', [client.id]);
    expect(rows[0]?.n).toBe(1);
    expect(await balanceOf(platform, client)).toBe('7.00');

    const restarted = await platform.api.post('/api/v2/client/verification/restart', { token: client.token });
    expect(restarted.body.code, restarted.body.message).toBe(0);
    expect(restarted.body.data.attempt).toMatchObject({ status: 'pending', charge: 'restart', fee: '0.00', invoice_id: null });
    expect(await balanceOf(platform, client)).toBe('7.00');
    await scanAndFinish(platform, client.token, 'pass');
    await settles(async () => { expect(await status(client)).toMatchObject({ is_verified: 1 }); });
    expect(await balanceOf(platform, client)).toBe('7.00');
    await expectBooksBalanced(platform);
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

  it('expires an attempt nobody finished; the expired attempt can be restarted free of charge', async () => {
    freeAttempts(1);
    platform.deps.config.verification.attemptSeconds = 3;
    try {
      const client = await registerClient(platform);
      const started = await init(client, idNumber(4), '赵六');
      const attemptNo = started.body.data.attempt.attempt_no as string;
      await settles(async () => { expect(await status(client)).toMatchObject({ verification_status: 3, attempt: { status: 'expired' } }); });
      const handle = platform.temporal.workflow.getHandle(verificationWorkflowId(attemptNo));
      await expect(handle.result()).resolves.toMatchObject({ outcome: 'expired' });
      await recordHistory(handle, VERIFICATION_WORKFLOW_TYPE, 'expired');
      platform.deps.config.verification.attemptSeconds = 1800;
      const restarted = await platform.api.post('/api/v2/client/verification/restart', { token: client.token });
      expect(restarted.body.data.attempt).toMatchObject({ status: 'pending', charge: 'restart' });
      // A late callback for the expired attempt changes nothing.
      const late = await platform.certify.control.sendCallback(started.body.data.certify_id as string);
      expect(late?.http_status).toBe(200);
      expect((await status(client)).attempt).toMatchObject({ status: 'pending', attempt_no: restarted.body.data.attempt.attempt_no });
    } finally {
      platform.deps.config.verification.attemptSeconds = 1800;
    }
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

  it('duplicated and delayed callbacks apply the result once', async () => {
    freeAttempts(5);
    platform.certify.control.setCallbackMode('duplicated');
    try {
      const client = await registerClient(platform);
      await init(client, idNumber(13), '吴十');
      const { provider } = await scanAndFinish(platform, client.token, 'pass');
      expect(provider.callbacks.map((c: { http_status: number }) => c.http_status)).toEqual([200, 200]);
      await settles(async () => {
        expect(await status(client)).toMatchObject({ is_verified: 1 });
      });
      const history = await platform.api.get(`/api/v2/admin/verifications/${client.id}/history`, { token: await platform.rootToken() });
      expect(history.body.data.events).toHaveLength(1);

      platform.certify.control.setCallbackMode('delayed', 1500);
      const other = await registerClient(platform);
      await init(other, idNumber(14), '郑十一');
      await scanAndFinish(platform, other.token, 'fail');
      await settles(async () => {
        expect(await status(other)).toMatchObject({ verification_status: 3 });
      });
    } finally {
      platform.certify.control.setCallbackMode('normal');
    }
  });

  it('without any callback the workflow finds the result by polling', async () => {
    freeAttempts(5);
    platform.certify.control.setCallbackMode('none');
    try {
      const client = await registerClient(platform);
      await init(client, idNumber(15), '冯十二');
      await scanAndFinish(platform, client.token, 'pass');
      await settles(async () => {
        expect(await status(client)).toMatchObject({ is_verified: 1 });
      });
    } finally {
      platform.certify.control.setCallbackMode('normal');
    }
  });
});

describe('identity rules', () => {
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

  it('refuses malformed names and ID numbers (check digit) with 42200', async () => {
    const client = await registerClient(platform);
    const bad = `${idNumber(21).slice(0, 17)}${idNumber(21).endsWith('1') ? '2' : '1'}`;
    const res = await init(client, bad, '张三');
    expectError(res, 42200, 422);
    expect(res.body.data.errors.id_number).toBeDefined();
    expectError(await init(client, idNumber(21), 'x'), 42200, 422);
  });
});

describe('the provider and the scan relay', () => {
  it('keeps an attempt usable through a provider outage; the QR code opens the session once the provider is back', async () => {
    freeAttempts(5);
    const client = await registerClient(platform);
    platform.certify.control.setOutage(true);
    try {
      const started = await init(client, idNumber(30), '楚一');
      expect(started.body.code, started.body.message).toBe(0);
      expect(started.body.data.certify_id).toBeNull();
      expectError(await platform.api.post('/api/v2/client/verification/qrcode', { token: client.token }), 50300, 503);
    } finally {
      platform.certify.control.setOutage(false);
    }
    await scanAndFinish(platform, client.token, 'pass');
    await settles(async () => {
      expect(await status(client)).toMatchObject({ is_verified: 1 });
    });
  });

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
