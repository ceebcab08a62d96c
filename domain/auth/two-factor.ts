import { createHmac, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Transaction } from 'sequelize';
import { sqlOne, sqlRows } from '../../db/sql.js';
import { constantTimeEqual, deriveKey, randomToken, sha256Hex } from '../../lib/crypto.js';
import { AppError, conflict, ErrorCode, notFound, unauthenticated, validationError } from '../../lib/errors.js';
import { currentRequestContext } from '../../lib/request-context.js';
import type { Surface } from '../../db/models/auth-session.js';
import type { TwoFactorCredentialRow } from '../../db/models/two-factor.js';
import type { DomainDeps } from '../deps.js';
import { insertAuditRecords } from '../logs/admin-audit.js';
import { readSettings } from '../settings/settings.js';
import { securitySettings } from '../settings/groups/security.js';
import { publishAuthChange } from './auth-events.js';
import { beginLoginAttempt, settleLoginAttempt } from './login-throttle.js';
import type { AdminPrincipal } from './principals.js';
import { type IssuedToken, issueSession, type RequestMeta } from './sessions.js';

/**
 * Two-factor sign-in (TOTP, RFC 6238: SHA-1, 6 digits, 30 s steps, one step of clock drift
 * either way) for admins and users, one code for both surfaces. See docs/security.md.
 *
 * - A credential is one row per account; its secret is sealed (`deps.secretBox`) and leaves the
 *   server only in the enrolment's answer (the `otpauth://` URI) and the QR image behind a
 *   short-lived signed link.
 * - A code is accepted once: `last_used_step` is advanced by a guarded update (`WHERE
 *   last_used_step < step`), so the same code, or an older one, is refused afterwards, also to
 *   a concurrent request (it waits for the row lock and then finds the step taken).
 * - Recovery codes: ten, shown once at confirmation, stored as keyed hashes, each consumed by
 *   `UPDATE ... WHERE used_at IS NULL RETURNING`.
 * - Every check of a code goes through the login throttle (`beginLoginAttempt`) under the
 *   account's login name: a wrong code is a failure (`bad_code`, `replayed_code`) like a wrong
 *   password, and every outcome is a login-log row.
 */

const ISSUER = 'Hosting Platform';
const PERIOD_SECONDS = 30;
const DRIFT_STEPS = 1;
const RECOVERY_CODE_COUNT = 10;
export const CHALLENGE_TTL_SECONDS = 300;
const QR_TTL_SECONDS = 600;
export const TWO_FACTOR_QR_PATH = '/api/secure-assets/two-factor-qr';

const WRONG_CODE = '验证码错误或已使用';
const CHALLENGE_GONE = '两步验证已过期，请重新登录';

/** Who a credential belongs to; `account` is the login name the throttle and the login log use. */
export type TwoFactorSubject = { surface: Surface; subjectId: number; account: string };

/** A second factor as posted: a 6-digit code from the app, or one of the recovery codes. */
export type SecondFactorInput = { otp?: string | undefined; recovery_code?: string | undefined };

export type SecondFactorMethod = 'totp' | 'recovery_code';

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The time step the code belongs to (the current one or its neighbours), or null. */
function stepOf(totp: TOTP, code: string, now = Date.now()): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totp.validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** Recovery codes are compared as upper-case letters and digits (dashes and spaces dropped). */
function recoveryHash(deps: DomainDeps, code: string): string {
  const normalised = code.replace(/[\s-]/g, '').toUpperCase();
  return createHmac('sha256', deriveKey(deps.config.secretKey, 'two-factor-recovery-code')).update(normalised).digest('hex');
}

const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** `XXXXX-XXXXX`: 10 characters of a 32-letter alphabet (50 bits). */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const challengeHash = sha256Hex;

async function credentialOf(deps: DomainDeps, surface: Surface, subjectId: number, transaction?: Transaction) {
  return deps.db.models.TwoFactorCredential.findOne({ where: { surface, subject_id: subjectId }, transaction });
}

/** Whether the settings require a second factor of this admin (all staff, or the admin's role). */
export async function twoFactorRequiredFor(deps: DomainDeps, admin: { roleCode: string }): Promise<boolean> {
  const settings = await readSettings(deps, securitySettings);
  return settings.two_factor_required_for_all_admins || settings.two_factor_required_roles.includes(admin.roleCode);
}

/** Whether the account has a confirmed second factor (the login then takes two steps). */
export async function hasSecondFactor(deps: DomainDeps, surface: Surface, subjectId: number): Promise<boolean> {
  const credential = await credentialOf(deps, surface, subjectId);
  return Boolean(credential?.confirmed_at);
}

export async function twoFactorStatus(deps: DomainDeps, surface: Surface, subjectId: number) {
  const credential = await credentialOf(deps, surface, subjectId);
  const remaining = credential?.confirmed_at
    ? await deps.db.models.TwoFactorRecoveryCode.count({ where: { credential_id: credential.id, used_at: null } })
    : 0;
  return {
    enabled: Boolean(credential?.confirmed_at),
    pending: Boolean(credential && !credential.confirmed_at),
    confirmedAt: credential?.confirmed_at ?? null,
    recoveryCodesRemaining: remaining,
  };
}

function qrSignature(deps: DomainDeps, credentialId: number, expires: number): string {
  const key = deriveKey(deps.config.secretKey, 'two-factor-qr-url');
  return createHmac('sha256', key).update(`${credentialId}\n${expires}`).digest('base64url');
}

/** A signed link (relative to the API's base) to the QR image of an enrolment in progress. */
function qrUrl(deps: DomainDeps, credentialId: number, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + QR_TTL_SECONDS;
  const query = new URLSearchParams({ enrolment: String(credentialId), expires: String(expires), sig: qrSignature(deps, credentialId, expires) });
  return `${TWO_FACTOR_QR_PATH}?${query.toString()}`;
}

/**
 * Starts (or starts again) an enrolment: a new secret, sealed, replacing an unconfirmed one.
 * Answers the `otpauth://` URI (the secret is in it: shown this once) and the QR image's link.
 * 40900 if a confirmed second factor exists (disable it, or have an admin reset it, first).
 *
 * One statement, an upsert guarded on `confirmed_at IS NULL`: of enrolments started at once the
 * last one written wins (no unique-key error). A replaced enrolment takes a new id, so the QR
 * links of the ones it replaced stop working.
 */
export async function startEnrolment(deps: DomainDeps, subject: TwoFactorSubject) {
  const secret = new Secret({ size: 20 });
  const credential = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO two_factor_credentials (surface, subject_id, secret_sealed) VALUES ($1, $2, $3)
     ON CONFLICT (surface, subject_id) DO UPDATE
        SET id = DEFAULT, secret_sealed = EXCLUDED.secret_sealed, last_used_step = 0, created_at = now(), updated_at = now()
      WHERE two_factor_credentials.confirmed_at IS NULL
     RETURNING id`,
    [subject.surface, subject.subjectId, deps.secretBox.seal(secret.base32)],
  );
  if (!credential) throw conflict('已开启两步验证；如需更换，请先关闭（管理员可请有权限的管理员重置）');
  return {
    otpauthUri: totpOf(secret.base32, subject.account).toString(),
    qrUrl: qrUrl(deps, credential.id),
    qrExpiresIn: QR_TTL_SECONDS,
  };
}

/**
 * The QR image (PNG) of an enrolment in progress, for its signed link: 40300 for a bad
 * signature, 41000 once expired, 40400 once confirmed or replaced.
 */
export async function renderEnrolmentQr(deps: DomainDeps, link: { enrolment: number; expires: number; sig: string }): Promise<Buffer> {
  if (!constantTimeEqual(qrSignature(deps, link.enrolment, link.expires), link.sig)) throw new AppError(ErrorCode.FORBIDDEN, '二维码链接签名无效');
  if (link.expires * 1000 <= Date.now()) throw new AppError(ErrorCode.ASSET_LINK_EXPIRED, '二维码链接已过期，请重新开始绑定');
  const credential = await deps.db.models.TwoFactorCredential.findByPk(link.enrolment);
  if (!credential || credential.confirmed_at) throw notFound('二维码已失效，请重新开始绑定');
  const label = await accountLabel(deps, credential.surface, credential.subject_id);
  const uri = totpOf(deps.secretBox.open(credential.secret_sealed), label).toString();
  return QRCode.toBuffer(uri, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 256 });
}

async function accountLabel(deps: DomainDeps, surface: Surface, subjectId: number): Promise<string> {
  if (surface === 'admin') return (await deps.db.models.Admin.findByPk(subjectId))?.username ?? String(subjectId);
  const user = await deps.db.models.User.findByPk(subjectId);
  return user?.email ?? user?.phone ?? String(subjectId);
}

type Accepted = { ok: true; method: SecondFactorMethod } | { ok: false; reason: 'bad_code' | 'replayed_code' };

/**
 * Checks a code against a credential inside the caller's transaction and, if right, spends it:
 * a TOTP code advances `last_used_step` (guarded: a code of a step already used is refused), a
 * recovery code is marked used (guarded on `used_at IS NULL`).
 */
async function acceptCode(
  deps: DomainDeps,
  credential: TwoFactorCredentialRow,
  label: string,
  input: SecondFactorInput,
  transaction: Transaction,
  options: { recovery: boolean } = { recovery: true },
): Promise<Accepted> {
  if (input.otp !== undefined) {
    const step = stepOf(totpOf(deps.secretBox.open(credential.secret_sealed), label), input.otp.trim());
    if (step === null) return { ok: false, reason: 'bad_code' };
    const rows = await sqlRows<{ id: number }>(
      deps,
      `UPDATE two_factor_credentials SET last_used_step = $2, updated_at = now() WHERE id = $1 AND last_used_step < $2 RETURNING id`,
      [credential.id, step],
      transaction,
    );
    return rows.length === 1 ? { ok: true, method: 'totp' } : { ok: false, reason: 'replayed_code' };
  }
  if (input.recovery_code !== undefined && options.recovery) {
    const rows = await sqlRows<{ id: number }>(
      deps,
      `UPDATE two_factor_recovery_codes SET used_at = now() WHERE credential_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING id`,
      [credential.id, recoveryHash(deps, input.recovery_code)],
      transaction,
    );
    return rows.length === 1 ? { ok: true, method: 'recovery_code' } : { ok: false, reason: 'bad_code' };
  }
  return { ok: false, reason: 'bad_code' };
}

/** Exactly one of `otp` and `recovery_code` (42200 otherwise). */
export function assertOneFactor(input: SecondFactorInput): void {
  if ((input.otp === undefined) === (input.recovery_code === undefined)) {
    throw validationError({ otp: ['请提供 6 位验证码（otp）或恢复码（recovery_code）之一'] });
  }
}

/**
 * Confirms an enrolment with its first code: the credential becomes active, ten recovery codes
 * are made (answered this once, stored hashed), and the session counts as verified now (an
 * enrol-only session becomes a full one). A wrong code is a throttled failure (42200).
 */
export async function confirmEnrolment(
  deps: DomainDeps,
  subject: TwoFactorSubject,
  sessionId: string,
  otp: string,
  meta: RequestMeta,
): Promise<{ recoveryCodes: string[] }> {
  const attempt = await beginLoginAttempt(deps, subject.surface, subject.account, meta);
  const outcome = await deps.db.sequelize.transaction(async (transaction) => {
    const credential = await credentialOf(deps, subject.surface, subject.subjectId, transaction);
    if (!credential || credential.confirmed_at) return { ok: false as const, refusal: 'state' as const };
    const accepted = await acceptCode(deps, credential, subject.account, { otp }, transaction, { recovery: false });
    if (!accepted.ok) return { ok: false as const, refusal: accepted.reason };
    const [confirmed] = await deps.db.models.TwoFactorCredential.update(
      { confirmed_at: new Date() },
      { where: { id: credential.id, confirmed_at: null }, transaction },
    );
    if (confirmed !== 1) return { ok: false as const, refusal: 'state' as const };
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await deps.db.models.TwoFactorRecoveryCode.bulkCreate(
      recoveryCodes.map((code) => ({ credential_id: credential.id, code_hash: recoveryHash(deps, code) })),
      { transaction },
    );
    await markSessionVerified(deps, sessionId, transaction);
    return { ok: true as const, recoveryCodes };
  });
  if (!outcome.ok) {
    if (outcome.refusal === 'state') {
      await settleLoginAttempt(deps, attempt, { success: false, reason: 'two_factor_not_pending', subjectId: subject.subjectId });
      throw conflict('没有进行中的两步验证绑定，请先开始绑定');
    }
    await settleLoginAttempt(deps, attempt, { success: false, reason: outcome.refusal, subjectId: subject.subjectId });
    throw validationError({ otp: [WRONG_CODE] });
  }
  await settleLoginAttempt(deps, attempt, { success: true, reason: 'two_factor_enrolled', subjectId: subject.subjectId });
  return { recoveryCodes: outcome.recoveryCodes };
}

/** The session proved a second factor now; an enrol-only session becomes a full one. */
async function markSessionVerified(deps: DomainDeps, sessionId: string, transaction: Transaction): Promise<void> {
  const [updated] = await deps.db.models.AuthSession.update(
    { second_factor_at: new Date(), scope: 'full' },
    { where: { id: sessionId, revoked_at: null }, transaction },
  );
  if (updated !== 1) throw unauthenticated('登录已失效，请重新登录');
  await publishAuthChange(deps, { session_id: sessionId }, transaction);
}

/**
 * Step-up: a fresh code (or a recovery code) refreshes the session's verification time. 42200
 * for a wrong or used code (a throttled failure); 40900 without a second factor.
 */
export async function verifySecondFactor(
  deps: DomainDeps,
  subject: TwoFactorSubject,
  sessionId: string,
  input: SecondFactorInput,
  meta: RequestMeta,
): Promise<{ method: SecondFactorMethod }> {
  assertOneFactor(input);
  const credential = await credentialOf(deps, subject.surface, subject.subjectId);
  if (!credential?.confirmed_at) throw conflict('尚未开启两步验证');
  const attempt = await beginLoginAttempt(deps, subject.surface, subject.account, meta);
  const accepted = await deps.db.sequelize.transaction(async (transaction) => {
    const result = await acceptCode(deps, credential, subject.account, input, transaction);
    if (result.ok) await markSessionVerified(deps, sessionId, transaction);
    return result;
  });
  if (!accepted.ok) {
    await settleLoginAttempt(deps, attempt, { success: false, reason: accepted.reason, subjectId: subject.subjectId });
    throw validationError({ [input.otp !== undefined ? 'otp' : 'recovery_code']: [WRONG_CODE] });
  }
  await settleLoginAttempt(deps, attempt, { success: true, reason: `step_up_${accepted.method}`, subjectId: subject.subjectId });
  return { method: accepted.method };
}

/** Step 1 of a two-step login: the password was right; answers a single-use challenge token. */
export async function createLoginChallenge(deps: DomainDeps, subject: TwoFactorSubject) {
  const token = randomToken(32);
  await deps.db.models.TwoFactorChallenge.create({
    token_hash: challengeHash(token),
    surface: subject.surface,
    subject_id: subject.subjectId,
    account: subject.account.slice(0, 191),
    expires_at: new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000),
  });
  return { challengeToken: token, expiresIn: CHALLENGE_TTL_SECONDS };
}

/**
 * Step 2 of a two-step login: the challenge and a code (or a recovery code). Throttled under the
 * login name like the password; a wrong or used code is 40100 and a failure. The code, the
 * challenge (single use) and the new session are one transaction: of two logins with the same
 * code, one gets in.
 */
export async function completeTwoFactorLogin(
  deps: DomainDeps,
  surface: Surface,
  input: SecondFactorInput & { challenge_token: string },
  meta: RequestMeta,
): Promise<{ subjectId: number; token: IssuedToken; method: SecondFactorMethod }> {
  assertOneFactor(input);
  const hash = challengeHash(input.challenge_token);
  const challenge = await deps.db.models.TwoFactorChallenge.findByPk(hash);
  if (!challenge || challenge.surface !== surface || challenge.used_at || challenge.expires_at.getTime() <= Date.now()) {
    throw unauthenticated(CHALLENGE_GONE);
  }
  const subject: TwoFactorSubject = { surface, subjectId: challenge.subject_id, account: challenge.account };
  const attempt = await beginLoginAttempt(deps, surface, challenge.account, meta);
  const credential = await credentialOf(deps, surface, challenge.subject_id);
  if (!credential?.confirmed_at) {
    // Reset by an admin between the two steps: start again.
    await settleLoginAttempt(deps, attempt, { success: false, reason: 'two_factor_reset', subjectId: subject.subjectId });
    throw unauthenticated(CHALLENGE_GONE);
  }
  const label = await accountLabel(deps, surface, challenge.subject_id);
  const challengeUsed = new Error('challenge used');
  let result: Accepted & { token?: IssuedToken };
  try {
    result = await deps.db.sequelize.transaction(async (transaction) => {
      const accepted = await acceptCode(deps, credential, label, input, transaction);
      if (!accepted.ok) return accepted;
      const [used] = await deps.db.models.TwoFactorChallenge.update(
        { used_at: new Date() },
        { where: { token_hash: hash, used_at: null }, transaction },
      );
      // Rolls the spent code back: the challenge was used by a concurrent request.
      if (used !== 1) throw challengeUsed;
      const token = await issueSession(deps, surface, challenge.subject_id, meta, transaction, { secondFactorAt: new Date() });
      return { ...accepted, token };
    });
  } catch (err) {
    if (err !== challengeUsed) throw err;
    await settleLoginAttempt(deps, attempt, { success: false, reason: 'challenge_used', subjectId: subject.subjectId });
    throw unauthenticated(CHALLENGE_GONE);
  }
  if (!result.ok) {
    await settleLoginAttempt(deps, attempt, { success: false, reason: result.reason, subjectId: subject.subjectId });
    await auditTwoFactorLogin(deps, subject, 40100, 'refused', result.reason);
    throw unauthenticated(WRONG_CODE);
  }
  await settleLoginAttempt(deps, attempt, { success: true, reason: result.method, subjectId: subject.subjectId });
  await auditTwoFactorLogin(deps, subject, 0, result.method === 'recovery_code' ? 'recovery_code' : 'two_factor', result.method);
  return { subjectId: challenge.subject_id, token: result.token as IssuedToken, method: result.method };
}

/**
 * The admin audit's row of an admin's second login step (a public route, so the audit
 * middleware does not see it): refusals and uses of a recovery code included. Written at once.
 */
async function auditTwoFactorLogin(deps: DomainDeps, subject: TwoFactorSubject, code: number, action: string, detail: string) {
  if (subject.surface !== 'admin') return;
  const context = currentRequestContext();
  try {
    await insertAuditRecords(deps, [
      {
        adminId: subject.subjectId,
        adminName: subject.account,
        method: 'POST',
        route: '/api/v2/admin/login/2fa',
        status: code === 0 ? 200 : 401,
        code,
        targetType: 'admin',
        targetId: String(subject.subjectId),
        action,
        before: null,
        after: null,
        request: { second_factor: detail },
        requestId: context?.requestId ?? '',
        ip: context?.ip ?? '',
        userAgent: context?.userAgent ?? '',
        at: new Date(),
      },
    ]);
  } catch (err) {
    deps.logger.error({ err, adminId: subject.subjectId }, 'two-factor audit row not written');
  }
}

/**
 * An admin removes another admin's second factor (lost phone): the credential and its recovery
 * codes go, the admin's sessions are revoked, and the login log records it. 40900 for oneself
 * (use disable) or when there is nothing to reset.
 */
export async function resetTwoFactor(deps: DomainDeps, actor: AdminPrincipal, adminId: number, meta: RequestMeta): Promise<void> {
  if (actor.id === adminId) throw conflict('不能重置自己的两步验证');
  const target = await deps.db.models.Admin.findByPk(adminId);
  if (!target) throw notFound('管理员不存在');
  await deps.db.sequelize.transaction(async (transaction) => {
    const removed = await deps.db.models.TwoFactorCredential.destroy({ where: { surface: 'admin', subject_id: adminId }, transaction });
    if (removed === 0) throw conflict('该管理员未绑定两步验证');
    await deps.db.models.AuthSession.update(
      { revoked_at: new Date() },
      { where: { surface: 'admin', subject_id: adminId, revoked_at: null }, transaction },
    );
    await publishAuthChange(deps, { surface: 'admin', subject_id: adminId }, transaction);
    await deps.db.models.LoginLog.create(
      {
        surface: 'admin',
        account: target.username,
        subject_id: adminId,
        ip: meta.ip.slice(0, 64),
        user_agent: meta.userAgent.slice(0, 255),
        success: false,
        reason: `two_factor_reset_by:${actor.id}`,
      },
      { transaction },
    );
  });
}

/**
 * Turns one's own second factor off, with a current code. Refused (42200) for an admin whom the
 * settings require to have one.
 */
export async function disableTwoFactor(
  deps: DomainDeps,
  subject: TwoFactorSubject,
  input: SecondFactorInput,
  meta: RequestMeta,
  required: boolean,
): Promise<void> {
  assertOneFactor(input);
  if (required) throw validationError({ otp: ['系统设置要求您的账号开启两步验证，不能关闭'] });
  const credential = await credentialOf(deps, subject.surface, subject.subjectId);
  if (!credential?.confirmed_at) throw conflict('尚未开启两步验证');
  const attempt = await beginLoginAttempt(deps, subject.surface, subject.account, meta);
  const accepted = await deps.db.sequelize.transaction(async (transaction) => {
    const result = await acceptCode(deps, credential, subject.account, input, transaction);
    if (result.ok) await deps.db.models.TwoFactorCredential.destroy({ where: { id: credential.id }, transaction });
    return result;
  });
  if (!accepted.ok) {
    await settleLoginAttempt(deps, attempt, { success: false, reason: accepted.reason, subjectId: subject.subjectId });
    throw validationError({ [input.otp !== undefined ? 'otp' : 'recovery_code']: [WRONG_CODE] });
  }
  await settleLoginAttempt(deps, attempt, { success: true, reason: 'two_factor_disabled', subjectId: subject.subjectId });
}

/**
 * Step-up, before a sensitive admin write (`stepUp: true` in the route's access): an admin with
 * a second factor must have proved it on this session within `security.step_up_max_age_minutes`,
 * else 40302. An admin the settings require to have one but who has none (a session from before
 * the setting) gets 40302 too. An admin without a second factor who is not required to have one
 * is not asked (there is nothing to ask for).
 */
export async function requireFreshSecondFactor(deps: DomainDeps, admin: AdminPrincipal): Promise<void> {
  const row = await sqlOne<{ second_factor_at: Date | null; confirmed_at: Date | null }>(
    deps,
    `SELECT s.second_factor_at, c.confirmed_at
       FROM auth_sessions s
       LEFT JOIN two_factor_credentials c ON c.surface = 'admin' AND c.subject_id = s.subject_id
      WHERE s.id = $1`,
    [admin.sessionId],
  );
  if (!row?.confirmed_at) {
    if (await twoFactorRequiredFor(deps, admin)) {
      throw new AppError(ErrorCode.STEP_UP_REQUIRED, '此操作要求已开启两步验证，请先绑定两步验证并重新登录');
    }
    return;
  }
  const { step_up_max_age_minutes: minutes } = await readSettings(deps, securitySettings);
  const verifiedAt = row.second_factor_at ? new Date(row.second_factor_at).getTime() : 0;
  if (verifiedAt > Date.now() - minutes * 60_000) return;
  throw new AppError(ErrorCode.STEP_UP_REQUIRED, `此操作需要重新验证身份：请输入两步验证码（距上次验证已超过 ${minutes} 分钟）`);
}
