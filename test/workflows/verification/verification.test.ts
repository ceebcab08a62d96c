import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchFulfilment } from '../../../domain/upstream-work/dispatch-fulfilment.js';
import { VERIFICATION_WORKFLOW_TYPE, verificationWorkflowId } from '../../../workflows/verification/contract.js';
import { adjustBalance, balanceOf, expectBooksBalanced, registerClient } from '../../helpers/billing.js';
import { recordHistory } from '../../helpers/histories.js';
import { expectError } from '../../helpers/http.js';
import { idNumber, type IdentityPlatform, scanAndFinish, settles, startIdentityPlatform, verificationCalls } from '../../helpers/identity.js';
import { captureLogs } from '../../helpers/vnc.js';

/** The verification workflow, started by the client route, to its outcome (callback, polling, expiry) and its recorded history. */
let platform: IdentityPlatform;
let logs: string[];
const { status, init, freeAttempts } = verificationCalls(() => platform);

beforeAll(async () => {
  platform = await startIdentityPlatform();
  logs = captureLogs(platform);
});
afterAll(() => platform?.close());

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

describe('the provider', () => {
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
});
