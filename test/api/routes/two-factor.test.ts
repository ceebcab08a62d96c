import { URI, type TOTP } from 'otpauth';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_VIEW } from '../../../domain/logs/admin-audit.js';
import { expectError } from '../../helpers/http.js';
import { captureLogs } from '../../helpers/vnc.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '200' } });
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const PASSWORD = 'staff-password-2026';

/** A code of the step `offset` steps from now (the server accepts the current step and one either way). */
function code(totp: TOTP, offset = 0): string {
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

let roleSeq = 0;
/** A new admin with a role of its own holding `permissions`; answers its id, username and role code. */
async function createAdmin(permissions: string[]) {
  roleSeq += 1;
  const roleCode = `tf_role_${roleSeq}`;
  const role = await platform.api.post('/api/v2/admin/auth/roles', { token: root, body: { code: roleCode, name: `两步验证角色${roleSeq}`, permissions } });
  expect(role.body.code).toBe(0);
  const username = `tf-admin-${roleSeq}`;
  const admin = await platform.api.post('/api/v2/admin/auth/admins', { token: root, body: { username, password: PASSWORD, role_id: role.body.data.id } });
  expect(admin.body.code).toBe(0);
  return { id: admin.body.data.id as number, username, roleCode };
}

async function passwordLogin(username: string) {
  return platform.api.post('/api/v2/admin/login', { body: { username, password: PASSWORD } });
}

/** Enrols and confirms a second factor with the session's token; answers the TOTP and the recovery codes. */
async function enrol(token: string, surface: 'admin' | 'client' = 'admin') {
  const started = await platform.api.post(`/api/v2/${surface}/auth/2fa/enrol`, { token });
  expect(started.body.code).toBe(0);
  const totp = URI.parse(started.body.data.otpauth_uri as string) as TOTP;
  const confirmed = await platform.api.post(`/api/v2/${surface}/auth/2fa/confirm`, { token, body: { otp: code(totp) } });
  expect(confirmed.body.code).toBe(0);
  return { totp, recoveryCodes: confirmed.body.data.recovery_codes as string[], started: started.body.data };
}

/** An admin with a confirmed second factor; the code step used in confirming is spent. */
async function adminWithSecondFactor(permissions: string[] = []) {
  const admin = await createAdmin(permissions);
  const login = await passwordLogin(admin.username);
  const { totp, recoveryCodes } = await enrol(login.body.data.access_token as string);
  // Tests that log in again start from a clean slate of steps.
  await resetUsedStep(admin.id);
  return { ...admin, totp, recoveryCodes };
}

async function resetUsedStep(adminId: number) {
  await platform.deps.db.sequelize.query(`UPDATE two_factor_credentials SET last_used_step = 0 WHERE surface = 'admin' AND subject_id = $1`, {
    bind: [adminId],
  });
}

async function twoStepLogin(username: string, factor: { otp?: string; recovery_code?: string }) {
  const first = await passwordLogin(username);
  expect(first.body.code).toBe(0);
  expect(first.body.data.two_factor_required).toBe(true);
  return platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token, ...factor } });
}

async function loginReasons(account: string) {
  const rows = await platform.deps.db.models.LoginLog.findAll({ where: { account }, order: [['id', 'ASC']] });
  return rows.map((r) => r.reason);
}

type AuditRow = { route: string; action: string; code: number | null; request: unknown; after: unknown };

/** The admin's audit rows as the audit routes show them (a change's row with its answer's outcome), once `ready` holds. */
async function auditRows(adminId: number, ready: (rows: AuditRow[]) => boolean): Promise<AuditRow[]> {
  return eventually(async () => {
    // Rows written after an answer (refusals, and the outcome of a call that committed) are
    // inserted off the answer's path: wait for those under way.
    await platform.deps.operations?.audit.flush();
    const rows = await platform.deps.db.sequelize.query<AuditRow>(
      `SELECT route, action, code, request, after FROM ${AUDIT_VIEW} WHERE admin_id = $1 ORDER BY id`,
      { bind: [adminId], type: QueryTypes.SELECT },
    );
    return ready(rows) ? rows : null;
  });
}

describe('admin enrolment and two-step login', () => {
  it('enrols with an otpauth URI and a QR image by signed URL, confirms with a first code, then logs in in two steps', async () => {
    const admin = await createAdmin([]);
    const login = await passwordLogin(admin.username);
    expect(login.body.data).toMatchObject({ two_factor_required: false, two_factor_enrolment_required: false, token_type: 'Bearer' });
    const token = login.body.data.access_token as string;

    const started = await platform.api.post('/api/v2/admin/auth/2fa/enrol', { token });
    expect(started.body.code).toBe(0);
    const { otpauth_uri: uri, qr_url: qrUrl } = started.body.data as { otpauth_uri: string; qr_url: string };
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(qrUrl).toMatch(/^\/api\/secure-assets\/two-factor-qr\?/);
    const totp = URI.parse(uri) as TOTP;
    const secret = totp.secret.base32;
    expect(qrUrl).not.toContain(secret);
    expect(started.raw).not.toMatch(/data:image/);

    const image = await fetch(`${platform.baseUrl}${qrUrl}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('no-store');
    const png = new Uint8Array(await image.arrayBuffer());
    expect([...png.slice(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
    const tampered = await fetch(`${platform.baseUrl}${qrUrl.replace(/sig=[^&]+/, 'sig=forged')}`);
    expect(tampered.status).toBe(403);

    const stored = await platform.deps.db.models.TwoFactorCredential.findOne({ where: { surface: 'admin', subject_id: admin.id } });
    expect(stored?.secret_sealed).toBeTruthy();
    expect(stored?.secret_sealed).not.toContain(secret);

    expectError(await platform.api.post('/api/v2/admin/auth/2fa/confirm', { token, body: { otp: '12345' } }), 42200, 422);
    const wrong = code(totp, 5);
    expectError(await platform.api.post('/api/v2/admin/auth/2fa/confirm', { token, body: { otp: wrong } }), 42200, 422);
    const confirmed = await platform.api.post('/api/v2/admin/auth/2fa/confirm', { token, body: { otp: code(totp) } });
    expect(confirmed.body.code).toBe(0);
    const recoveryCodes = confirmed.body.data.recovery_codes as string[];
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const hashes = await platform.deps.db.models.TwoFactorRecoveryCode.findAll({ where: { credential_id: stored?.id } });
    expect(hashes).toHaveLength(10);
    expect(hashes.map((h) => h.code_hash)).not.toContain(recoveryCodes[0]);
    // The link dies with the enrolment.
    expect((await fetch(`${platform.baseUrl}${qrUrl}`)).status).toBe(404);

    const status = await platform.api.get('/api/v2/admin/auth/2fa', { token });
    expect(status.body.data).toMatchObject({ enabled: true, pending: false, recovery_codes_remaining: 10, required: false });
    expect(status.raw).not.toContain(secret);
    // Enrolling again needs the current one gone first.
    expectError(await platform.api.post('/api/v2/admin/auth/2fa/enrol', { token }), 40900, 409);

    const first = await passwordLogin(admin.username);
    expect(first.body.data).toEqual({ two_factor_required: true, challenge_token: expect.any(String), challenge_expires_in: 300 });
    // The challenge is not an access token.
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: first.body.data.challenge_token }), 40100, 401);
    const second = await platform.api.post('/api/v2/admin/login/2fa', {
      body: { challenge_token: first.body.data.challenge_token, otp: code(totp, 1) },
    });
    expect(second.body.code).toBe(0);
    expect(second.body.data).toMatchObject({ two_factor_required: false, token_type: 'Bearer', admin: { id: admin.id } });
    const me = await platform.api.get('/api/v2/admin/auth/me', { token: second.body.data.access_token });
    expect(me.body.data.username).toBe(admin.username);
    // The challenge is single use.
    expectError(
      await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token, otp: code(totp, 1) } }),
      40100,
      401,
    );

    const reasons = await loginReasons(admin.username);
    expect(reasons).toContain('two_factor_enrolled');
    expect(reasons).toContain('two_factor_challenge');
    expect(reasons).toContain('totp');
    // The audit keeps the enrolment and its confirmation, never the secret or the recovery codes.
    const audit = await auditRows(admin.id, (rows) => rows.some((r) => r.route === '/api/v2/admin/auth/2fa/confirm' && r.code === 0));
    expect(audit.map((r) => r.route)).toEqual(expect.arrayContaining(['/api/v2/admin/auth/2fa/enrol', '/api/v2/admin/auth/2fa/confirm', '/api/v2/admin/login/2fa']));
    const text = JSON.stringify(audit);
    expect(text).not.toContain(secret);
    for (const recovery of recoveryCodes) expect(text).not.toContain(recovery);
    // Nor the QR link: whoever reads the audit could fetch the secret while the enrolment is open.
    expect(audit.find((r) => r.route === '/api/v2/admin/auth/2fa/enrol')?.after).toMatchObject({ qr_url: '[REDACTED]', otpauth_uri: '[REDACTED]' });
    expect(text).not.toContain(new URL(qrUrl, platform.baseUrl).searchParams.get('sig') as string);
  });

  it('throttles wrong codes like wrong passwords: after the limit even the right code is refused', async () => {
    const admin = await adminWithSecondFactor();
    const first = await passwordLogin(admin.username);
    const challenge = first.body.data.challenge_token as string;
    for (let i = 0; i < 3; i++) {
      const res = await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: challenge, otp: i % 2 ? '000000' : '999999' } });
      expectError(res, 40100, 401);
    }
    const refused = await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: challenge, otp: code(admin.totp) } });
    expectError(refused, 42900, 429);
    expect(refused.body.message).toMatch(/^登录失败次数过多，请 \d+ 分钟后再试$/);
    const reasons = await loginReasons(admin.username);
    expect(reasons.filter((r) => r === 'bad_code')).toHaveLength(3);
    expect(reasons.at(-1)).toBe('throttled');
    const audit = await auditRows(admin.id, (rows) => rows.filter((r) => r.action === 'refused').length >= 3);
    expect(audit.filter((r) => r.route === '/api/v2/admin/login/2fa' && r.action === 'refused' && r.code === 40100)).toHaveLength(3);
  });

  it('refuses a code already used within its window', async () => {
    const admin = await adminWithSecondFactor();
    const otp = code(admin.totp);
    expect((await twoStepLogin(admin.username, { otp })).body.code).toBe(0);
    const replay = await twoStepLogin(admin.username, { otp });
    expectError(replay, 40100, 401);
    expect(replay.body.message).toBe('验证码错误或已使用');
    expect((await loginReasons(admin.username)).at(-1)).toBe('replayed_code');
  });

  it('of two concurrent logins with the same code, exactly one gets in', async () => {
    const admin = await adminWithSecondFactor();
    const [a, b] = await Promise.all([passwordLogin(admin.username), passwordLogin(admin.username)]);
    const otp = code(admin.totp);
    const answers = await Promise.all(
      [a, b].map((first) => platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token, otp } })),
    );
    expect(answers.map((r) => r.body.code).sort()).toEqual([0, 40100]);
    const sessions = await platform.deps.db.models.AuthSession.count({ where: { surface: 'admin', subject_id: admin.id, revoked_at: null } });
    // One from the enrolment's password login, one from the winning code.
    expect(sessions).toBe(2);
  });

  it('accepts a recovery code once, and records its use in the login log and the audit', async () => {
    const admin = await adminWithSecondFactor();
    const recovery = admin.recoveryCodes[3] as string;
    const used = await twoStepLogin(admin.username, { recovery_code: recovery.toLowerCase() });
    expect(used.body.code).toBe(0);
    const again = await twoStepLogin(admin.username, { recovery_code: recovery });
    expectError(again, 40100, 401);
    const reasons = await loginReasons(admin.username);
    expect(reasons).toContain('recovery_code');
    expect(reasons.at(-1)).toBe('bad_code');
    const audit = await auditRows(admin.id, (rows) => rows.some((r) => r.action === 'recovery_code'));
    expect(audit.filter((r) => r.action === 'recovery_code')).toHaveLength(1);
    const status = await platform.api.get('/api/v2/admin/auth/2fa', { token: used.body.data.access_token });
    expect(status.body.data.recovery_codes_remaining).toBe(9);
    expect(JSON.stringify(audit)).not.toContain(recovery);
  });

  it('refuses a body with both or neither factor, naming the field', async () => {
    const admin = await adminWithSecondFactor();
    const first = await passwordLogin(admin.username);
    const both = await platform.api.post('/api/v2/admin/login/2fa', {
      body: { challenge_token: first.body.data.challenge_token, otp: '123456', recovery_code: 'ABCDE-FGHJK' },
    });
    expectError(both, 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token } }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: 'nope', otp: '123456' } }), 40100, 401);
  });
});

describe('a setting requires a second factor', () => {
  it('leads an admin of a required role through enrolment with a token that can do nothing else', async () => {
    const admin = await createAdmin(['user.view']);
    const saved = await platform.api.post('/api/v2/admin/settings', { token: root, body: { values: { 'security.two_factor_required_roles': [admin.roleCode] } } });
    expect(saved.body.code).toBe(0);

    const login = await passwordLogin(admin.username);
    expect(login.body.data).toMatchObject({ two_factor_required: false, two_factor_enrolment_required: true });
    const token = login.body.data.access_token as string;
    const refused = await platform.api.get('/api/v2/admin/users', { token });
    expectError(refused, 40300, 403);
    expect(refused.body.message).toContain('两步验证');
    expect((await platform.api.get('/api/v2/admin/auth/me', { token })).body.code).toBe(0);
    expect((await platform.api.get('/api/v2/admin/auth/2fa', { token })).body.data).toMatchObject({ enabled: false, required: true });
    // A refresh does not widen it.
    const refreshed = await platform.api.post('/api/v2/admin/auth/refresh', { token });
    const limited = refreshed.body.data.access_token as string;
    expectError(await platform.api.get('/api/v2/admin/users', { token: limited }), 40300, 403);

    const { totp } = await enrol(limited);
    // The same token is a full one after confirmation.
    expect((await platform.api.get('/api/v2/admin/users', { token: limited })).body.code).toBe(0);
    // Required: it cannot be turned off.
    expectError(await platform.api.post('/api/v2/admin/auth/2fa/disable', { token: limited, body: { otp: code(totp, 1) } }), 42200, 422);
    // The next login takes two steps.
    expect((await passwordLogin(admin.username)).body.data.two_factor_required).toBe(true);
    expect(await loginReasons(admin.username)).toContain('two_factor_enrolment_required');
  });
});

describe('step-up', () => {
  it('refuses a balance adjustment when the last verification is too old, and accepts it after verify', async () => {
    const admin = await adminWithSecondFactor(['user.recharge']);
    const signedIn = await twoStepLogin(admin.username, { otp: code(admin.totp, -1) });
    const token = signedIn.body.data.access_token as string;
    const user = await platform.api.post('/api/v2/client/register', { body: { email: 'step-up@example.com', password: 'client-password-1' } });
    const path = `/api/v2/admin/users/${user.body.data.user.id}/recharges`;
    const body = { amount: '10.00', remark: '补偿' };

    // Fresh from the login: accepted.
    expect((await platform.api.post(path, { token, body })).body.code).toBe(0);
    // The verification ages past the setting (15 minutes by default).
    await platform.deps.db.sequelize.query(`UPDATE auth_sessions SET second_factor_at = now() - interval '20 minutes' WHERE subject_id = $1 AND surface = 'admin'`, {
      bind: [admin.id],
    });
    const refused = await platform.api.post(path, { token, body });
    expectError(refused, 40302, 403);
    expect(refused.body.message).toContain('两步验证码');
    expectError(await platform.api.post('/api/v2/admin/auth/2fa/verify', { token, body: { otp: '000000' } }), 42200, 422);
    const verified = await platform.api.post('/api/v2/admin/auth/2fa/verify', { token, body: { otp: code(admin.totp) } });
    expect(verified.body.data.method).toBe('totp');
    expect((await platform.api.post(path, { token, body })).body.code).toBe(0);

    const recharges = (rows: AuditRow[]) => rows.filter((r) => r.route === '/api/v2/admin/users/{user}/recharges');
    const audit = await auditRows(admin.id, (rows) => recharges(rows).length >= 3 && rows.some((r) => r.route === '/api/v2/admin/auth/2fa/verify' && r.code === 0));
    expect(audit.filter((r) => r.route === '/api/v2/admin/users/{user}/recharges').map((r) => r.code)).toEqual([0, 40302, 0]);
    expect(audit.find((r) => r.route === '/api/v2/admin/auth/2fa/verify' && r.code === 0)?.request).toEqual({ second_factor: 'totp' });
  });

  it('takes a recovery code for step-up, once, and says so in the login log and the audit', async () => {
    const admin = await adminWithSecondFactor(['admin.manage']);
    const signedIn = await twoStepLogin(admin.username, { otp: code(admin.totp) });
    const token = signedIn.body.data.access_token as string;
    await platform.deps.db.sequelize.query(`UPDATE auth_sessions SET second_factor_at = NULL WHERE subject_id = $1 AND surface = 'admin'`, { bind: [admin.id] });
    const role = { code: `tf_stepup_${admin.id}`, name: '步进验证角色', permissions: [] };
    expectError(await platform.api.post('/api/v2/admin/auth/roles', { token, body: role }), 40302, 403);
    const recovery = admin.recoveryCodes[0] as string;
    const verified = await platform.api.post('/api/v2/admin/auth/2fa/verify', { token, body: { recovery_code: recovery } });
    expect(verified.body.data.method).toBe('recovery_code');
    expect((await platform.api.post('/api/v2/admin/auth/roles', { token, body: role })).body.code).toBe(0);
    const again = await platform.api.post('/api/v2/admin/auth/2fa/verify', { token, body: { recovery_code: recovery } });
    expectError(again, 42200, 422);
    expect(again.body.message).toBeTruthy();
    expect(await loginReasons(admin.username)).toContain('step_up_recovery_code');
    const verifies = (rows: AuditRow[]) => rows.filter((r) => r.route === '/api/v2/admin/auth/2fa/verify');
    const audit = await auditRows(admin.id, (rows) => verifies(rows).length >= 2 && verifies(rows).some((r) => r.code === 42200));
    expect(audit.filter((r) => r.route === '/api/v2/admin/auth/2fa/verify').map((r) => [r.code, r.request])).toEqual([
      [0, { second_factor: 'recovery_code' }],
      [42200, { second_factor: 'recovery_code' }],
    ]);
  });

  it('is declared in the OpenAPI document of the sensitive routes', async () => {
    const doc = await fetch(`${platform.baseUrl}/api/openapi.json`).then((r) => r.json() as Promise<{ paths: Record<string, Record<string, { 'x-access': { stepUp?: boolean }; description: string }>> }>);
    const stepUp = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([, op]) => op['x-access']?.stepUp).map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(stepUp.sort()).toEqual([
      'POST /api/v2/admin/auth/admins',
      'POST /api/v2/admin/auth/admins/{admin}/2fa/reset',
      'POST /api/v2/admin/auth/roles',
      'POST /api/v2/admin/referral-withdrawals/{id}/approve',
      'POST /api/v2/admin/referral-withdrawals/{id}/mark-paid',
      'POST /api/v2/admin/suppliers',
      'POST /api/v2/admin/users/{user}/invoices/{invoice}/refunds',
      'POST /api/v2/admin/users/{user}/recharges',
      'PUT /api/v2/admin/auth/admins/{admin}',
      'PUT /api/v2/admin/auth/roles/{role}',
      'PUT /api/v2/admin/integration-plugins/{id}/config',
      'PUT /api/v2/admin/suppliers/{supplier}',
    ]);
    expect(doc.paths['/api/v2/admin/users/{user}/recharges']?.post?.description).toContain('40302');
  });
});

describe('reset by another admin', () => {
  it('needs admin.reset_2fa, removes the factor, ends the sessions, and is in the login log and the audit', async () => {
    const target = await adminWithSecondFactor();
    const session = await twoStepLogin(target.username, { otp: code(target.totp) });
    const oldToken = session.body.data.access_token as string;

    const helper = await createAdmin(['admin.manage']);
    const helperLogin = await passwordLogin(helper.username);
    expectError(
      await platform.api.post(`/api/v2/admin/auth/admins/${target.id}/2fa/reset`, { token: helperLogin.body.data.access_token }),
      40300,
      403,
    );

    const reset = await platform.api.post(`/api/v2/admin/auth/admins/${target.id}/2fa/reset`, { token: root });
    expect(reset.body.code).toBe(0);
    expectError(await platform.api.post(`/api/v2/admin/auth/admins/${target.id}/2fa/reset`, { token: root }), 40900, 409);
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: oldToken }), 40100, 401);
    const again = await passwordLogin(target.username);
    expect(again.body.data.two_factor_required).toBe(false);
    expect((await loginReasons(target.username)).some((r) => r.startsWith('two_factor_reset_by:'))).toBe(true);
    const rootId = (await platform.deps.db.models.Admin.findOne({ where: { username: 'root' } }))?.id as number;
    const resets = (rows: AuditRow[]) => rows.filter((r) => r.route === '/api/v2/admin/auth/admins/{admin}/2fa/reset');
    const audit = await auditRows(rootId, (rows) => resets(rows).length >= 2);
    expect(audit.filter((r) => r.route === '/api/v2/admin/auth/admins/{admin}/2fa/reset').map((r) => [r.action, r.code])).toEqual([
      ['reset', 0],
      ['reset', 40900],
    ]);
  });
});

describe('clients turn it on for themselves', () => {
  it('enrols, confirms and logs in in two steps under /client, and turns it off with a code', async () => {
    const email = 'client-2fa@example.com';
    const registered = await platform.api.post('/api/v2/client/register', { body: { email, password: 'client-password-1' } });
    const token = registered.body.data.access_token as string;
    const { totp, started } = await enrol(token, 'client');
    expect(started.qr_url).toMatch(/^\/api\/secure-assets\/two-factor-qr\?/);

    const first = await platform.api.post('/api/v2/client/login', { body: { account: email, password: 'client-password-1' } });
    expect(first.body.data).toEqual({ two_factor_required: true, challenge_token: expect.any(String), challenge_expires_in: 300 });
    // An admin challenge route does not take a client challenge.
    expectError(await platform.api.post('/api/v2/admin/login/2fa', { body: { challenge_token: first.body.data.challenge_token, otp: code(totp, 1) } }), 40100, 401);
    const second = await platform.api.post('/api/v2/client/login/2fa', { body: { challenge_token: first.body.data.challenge_token, otp: code(totp, 1) } });
    expect(second.body.code).toBe(0);
    expect(second.body.data.user.email).toBe(email);

    const clientToken = second.body.data.access_token as string;
    const status = await platform.api.get('/api/v2/client/auth/2fa', { token: clientToken });
    expect(status.body.data).toMatchObject({ enabled: true, required: false, recovery_codes_remaining: 10 });
    await platform.deps.db.sequelize.query(`UPDATE two_factor_credentials SET last_used_step = 0 WHERE surface = 'client'`);
    expect((await platform.api.post('/api/v2/client/auth/2fa/disable', { token: clientToken, body: { otp: code(totp) } })).body.code).toBe(0);
    const plain = await platform.api.post('/api/v2/client/login', { body: { account: email, password: 'client-password-1' } });
    expect(plain.body.data).toMatchObject({ two_factor_required: false, two_factor_enrolment_required: false, user: { email } });
  });
});

describe('enrolments started at once', () => {
  it('twenty enrolments at once for one admin and one client all answer, and the last one wins', async () => {
    const admin = await createAdmin([]);
    const adminToken = (await passwordLogin(admin.username)).body.data.access_token as string;
    const registered = await platform.api.post('/api/v2/client/register', { body: { email: 'client-2fa-race@example.com', password: 'client-password-1' } });
    const clientId = registered.body.data.user.id as number;
    const clientToken = registered.body.data.access_token as string;
    const logger = platform.deps.logger;
    const lines = captureLogs(platform);
    try {
      for (const [surface, token, subjectId] of [
        ['admin', adminToken, admin.id],
        ['client', clientToken, clientId],
      ] as const) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => platform.api.post(`/api/v2/${surface}/auth/2fa/enrol`, { token })));
        expect(answers.map((a) => a.status).filter((s) => s >= 500)).toEqual([]);
        expect(answers.map((a) => a.body.code)).toEqual(Array.from({ length: 20 }, () => 0));
        const secrets = answers.map((a) => (URI.parse(a.body.data.otpauth_uri as string) as TOTP).secret.base32);
        expect(new Set(secrets).size).toBe(20);
        const rows = await platform.deps.db.models.TwoFactorCredential.findAll({ where: { surface, subject_id: subjectId } });
        expect(rows).toHaveLength(1);
        const [pending] = rows;
        expect(pending?.confirmed_at).toBeNull();
        // The answer whose enrolment remains is the one whose secret is stored: the last one written.
        const enrolments = answers.map((a) => Number(new URL(a.body.data.qr_url as string, platform.baseUrl).searchParams.get('enrolment')));
        const winners = enrolments.flatMap((id, i) => (id === pending?.id ? [i] : []));
        expect(winners).toHaveLength(1);
        const winner = winners[0] as number;
        expect(platform.deps.secretBox.open(pending?.secret_sealed as string)).toBe(secrets[winner]);
        // Only its QR link still works; the replaced enrolments' links are gone.
        const links = await Promise.all(answers.map(async (a) => (await fetch(`${platform.baseUrl}${a.body.data.qr_url as string}`)).status));
        expect(links.filter((s) => s === 200)).toHaveLength(1);
        expect(links[winner]).toBe(200);
        // Its code confirms the enrolment.
        const totp = URI.parse(answers[winner]?.body.data.otpauth_uri as string) as TOTP;
        expect((await platform.api.post(`/api/v2/${surface}/auth/2fa/confirm`, { token, body: { otp: code(totp) } })).body.code).toBe(0);
        const logged = lines.join('');
        expect(secrets.filter((s) => logged.includes(s))).toEqual([]);
      }
    } finally {
      platform.deps.logger = logger;
    }
  });
});
