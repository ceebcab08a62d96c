import { createHmac, randomInt } from 'node:crypto';
import { AppError, ErrorCode, validationError } from '../../lib/errors.js';
import { constantTimeEqual, deriveKey } from '../../lib/crypto.js';
import { invokePlugin } from '../../plugins/runtime/invoke.js';
import { inSequelizeTransaction, inTransaction, sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { afterCommit } from '../after-commit.js';
import { hashPassword } from './passwords.js';
import { publishAuthChange } from './auth-events.js';
import { revokeAllSessions } from './sessions.js';

export type CodePurpose = 'email_verification' | 'password_reset';
export type CodeChannel = 'mail' | 'sms';

const PURPOSE_TEXT: Record<CodePurpose, string> = { email_verification: '邮箱验证', password_reset: '重置密码' };

/** The normalised address a code goes to: a lower-cased e-mail, or a mainland mobile number. */
export function normaliseAddress(channel: CodeChannel, raw: string): string | null {
  const value = raw.trim();
  if (channel === 'mail') return /^[^\s@]{1,64}@[^\s@]{1,189}$/.test(value) ? value.toLowerCase() : null;
  const digits = value.replace(/^\+?86/, '');
  return /^1\d{10}$/.test(digits) ? digits : null;
}

function hmac(deps: DomainDeps, purpose: string, text: string): string {
  return createHmac('sha256', deriveKey(deps.config.secretKey, purpose)).update(text, 'utf8').digest('hex');
}

const addressHash = (deps: DomainDeps, channel: CodeChannel, address: string) => hmac(deps, 'auth-code-address', `${channel}:${address}`);
/** The stored form of a code: keyed (APP_SECRET_KEY) over purpose, address and code, so a table dump reveals no code. */
const codeHash = (deps: DomainDeps, purpose: CodePurpose, address: string, code: string) => hmac(deps, 'auth-code', `${purpose}:${address}:${code}`);

function tooMany(message: string): AppError {
  return new AppError(ErrorCode.TOO_MANY_REQUESTS, message);
}

/**
 * Records one send request and answers the code to send (null when there is no account: nothing
 * is sent, but the request counts like any other, so the answers and the throttling are the same
 * whether or not the account exists). Throttled under an advisory lock on the address (no two
 * requests both pass the count): one per `resendSeconds` and `maxPerAddressHour` per hour per
 * address (and per account), `maxPerIpHour` per hour per client address. Earlier codes of the
 * address for the purpose stop working: only the newest counts.
 */
async function issueCode(
  deps: DomainDeps,
  input: { purpose: CodePurpose; channel: CodeChannel; address: string; userId: number | null; ip: string },
): Promise<string | null> {
  const limits = deps.config.authCodes;
  const hash = addressHash(deps, input.channel, input.address);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return inTransaction(deps, async (tx) => {
    await sqlRows(deps, `SELECT pg_advisory_xact_lock(hashtext('auth-code:' || $1)) AS locked`, [hash], tx);
    const counts = await sqlOne<{ last_seconds: number | null; per_address: number; per_ip: number; per_user: number }>(
      deps,
      `SELECT (SELECT extract(epoch FROM now() - max(created_at))::int FROM auth_codes WHERE purpose = $1 AND address_hash = $2) AS last_seconds,
              (SELECT count(*)::int FROM auth_codes WHERE purpose = $1 AND address_hash = $2 AND created_at > now() - interval '1 hour') AS per_address,
              (SELECT count(*)::int FROM auth_codes WHERE client_ip = $3 AND created_at > now() - interval '1 hour') AS per_ip,
              (SELECT count(*)::int FROM auth_codes WHERE user_id = $4 AND purpose = $1 AND created_at > now() - interval '1 hour') AS per_user`,
      [input.purpose, hash, input.ip, input.userId ?? 0],
      tx,
    );
    if (counts?.last_seconds != null && counts.last_seconds < limits.resendSeconds) {
      throw tooMany(`发送过于频繁，请 ${limits.resendSeconds - counts.last_seconds} 秒后再试`);
    }
    if ((counts?.per_address ?? 0) >= limits.maxPerAddressHour || (counts?.per_user ?? 0) >= limits.maxPerAddressHour) {
      throw tooMany('该账号发送验证码次数过多，请一小时后再试');
    }
    if ((counts?.per_ip ?? 0) >= limits.maxPerIpHour) throw tooMany('发送验证码过于频繁，请稍后再试');
    await sqlRows(
      deps,
      `UPDATE auth_codes SET consumed_at = now() WHERE purpose = $1 AND address_hash = $2 AND consumed_at IS NULL RETURNING id`,
      [input.purpose, hash],
      tx,
    );
    // An unknown address gets a row without a code (nothing to verify), counted like the others.
    const stored = input.userId === null ? null : codeHash(deps, input.purpose, hash, code);
    await sqlRows(
      deps,
      `INSERT INTO auth_codes (purpose, channel, user_id, address_hash, client_ip, code_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING id`,
      [input.purpose, input.channel, input.userId, hash, input.ip.slice(0, 64), stored, limits.ttlSeconds],
      tx,
    );
    return stored === null ? null : code;
  });
}

/**
 * Sends a code after the commit, outside the answer (the answer takes the same time whether or
 * not an account exists). A lost send is harmless: the user asks again. The code is passed to the
 * plugin runtime as a secret value, so its log shows it redacted.
 */
function sendCode(deps: DomainDeps, channel: CodeChannel, address: string, purpose: CodePurpose, code: string): void {
  const minutes = Math.round(deps.config.authCodes.ttlSeconds / 60);
  afterCommit(deps, { label: `send ${purpose} code`, ifLost: 'not sent; the user asks for a new code' }, async () => {
    const common = { actor: SYSTEM_ACTOR, timeoutMs: 30_000, overrides: { config: {}, secretValues: [code] } };
    const result =
      channel === 'mail'
        ? await invokePlugin(deps, {
            ...common,
            domain: 'mail',
            action: 'mail.send',
            payload: {
              to: address,
              subject: `【${deps.config.siteName}】${PURPOSE_TEXT[purpose]}验证码`,
              text: `您的${PURPOSE_TEXT[purpose]}验证码是 ${code}，${minutes} 分钟内有效，只能使用一次。如非本人操作，请忽略本邮件。`,
            },
          })
        : await invokePlugin(deps, { ...common, domain: 'sms', action: 'sms.send', payload: { phone: address, scene: 'verify_code', params: { code } } });
    if (!result.success) deps.logger.warn({ purpose, channel, message: result.message }, 'verification code not sent');
  });
}

/**
 * Checks a code against the newest live code row of the address. The guess is counted in its own
 * committed statement first (a refusal rolls nothing back), so the attempts limit holds; a right
 * code is then used once by a guarded update in the caller's transaction. Every refusal is the
 * same 42200 on `code`.
 */
async function checkCode(deps: DomainDeps, purpose: CodePurpose, channel: CodeChannel, address: string, code: string): Promise<{ id: string; userId: number }> {
  const refused = () => validationError({ code: ['验证码不正确或已过期'] });
  if (!/^\d{6}$/.test(code)) throw refused();
  const hash = addressHash(deps, channel, address);
  const row = await sqlOne<{ id: string; user_id: number | null; code_hash: string | null }>(
    deps,
    `UPDATE auth_codes SET attempts = attempts + 1
      WHERE id = (SELECT id FROM auth_codes WHERE purpose = $1 AND address_hash = $2 AND consumed_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1)
        AND attempts < $3
      RETURNING id::text, user_id, code_hash`,
    [purpose, hash, deps.config.authCodes.maxAttempts],
  );
  if (!row || row.user_id === null || row.code_hash === null || !constantTimeEqual(row.code_hash, codeHash(deps, purpose, hash, code))) throw refused();
  return { id: row.id, userId: row.user_id };
}

async function useCode(deps: DomainDeps, id: string, tx: Tx): Promise<void> {
  const used = await sqlOne(deps, 'UPDATE auth_codes SET consumed_at = now() WHERE id = $1 AND consumed_at IS NULL RETURNING id', [id], tx);
  if (!used) throw validationError({ code: ['验证码不正确或已过期'] });
}

/** `POST /auth/email/verification`: a code to the caller's own e-mail address. */
export async function sendEmailVerification(deps: DomainDeps, userId: number, ip: string): Promise<void> {
  const user = await sqlOne<{ email: string | null; verified: boolean }>(deps, 'SELECT email, email_verified_at IS NOT NULL AS verified FROM users WHERE id = $1', [userId]);
  if (!user?.email) throw validationError({ email: ['账号未绑定邮箱'] });
  if (user.verified) throw new AppError(ErrorCode.CONFLICT, '邮箱已验证，无需重复验证');
  const address = user.email.toLowerCase();
  const code = await issueCode(deps, { purpose: 'email_verification', channel: 'mail', address, userId, ip });
  if (code) sendCode(deps, 'mail', address, 'email_verification', code);
}

/** `POST /auth/email/verify`: the code sent to the caller's e-mail marks it verified. */
export async function verifyEmail(deps: DomainDeps, userId: number, code: string): Promise<void> {
  const user = await sqlOne<{ email: string | null; verified: boolean }>(deps, 'SELECT email, email_verified_at IS NOT NULL AS verified FROM users WHERE id = $1', [userId]);
  if (!user?.email) throw validationError({ email: ['账号未绑定邮箱'] });
  if (user.verified) throw new AppError(ErrorCode.CONFLICT, '邮箱已验证，无需重复验证');
  const email = user.email;
  const checked = await checkCode(deps, 'email_verification', 'mail', email.toLowerCase(), code);
  if (checked.userId !== userId) throw validationError({ code: ['验证码不正确或已过期'] });
  await inSequelizeTransaction(deps, async (tx) => {
    await useCode(deps, checked.id, tx);
    await sqlRows(deps, 'UPDATE users SET email_verified_at = now(), updated_at = now() WHERE id = $1 AND email = $2 RETURNING id', [userId, email], tx);
    // Cached principals carry `emailVerified`: every process drops this account's.
    await publishAuthChange(deps, { surface: 'client', subject_id: userId }, tx);
  });
}

async function accountFor(deps: DomainDeps, channel: CodeChannel, address: string): Promise<number | null> {
  const row = await sqlOne<{ id: number }>(
    deps,
    channel === 'mail' ? `SELECT id FROM users WHERE lower(email) = $1 AND status = 'active'` : `SELECT id FROM users WHERE phone = $1 AND status = 'active'`,
    [address],
  );
  return row?.id ?? null;
}

/**
 * `POST /auth/password/reset-code` (after the captcha): a reset code to the e-mail or phone, if
 * an active account has it. The answer is the same either way.
 */
export async function requestPasswordReset(deps: DomainDeps, input: { channel: CodeChannel; account: string; ip: string }): Promise<void> {
  const address = normaliseAddress(input.channel, input.account);
  if (!address) throw validationError({ account: [input.channel === 'mail' ? '邮箱格式不正确' : '手机号格式不正确'] });
  const userId = await accountFor(deps, input.channel, address);
  const code = await issueCode(deps, { purpose: 'password_reset', channel: input.channel, address, userId, ip: input.ip });
  if (code) sendCode(deps, input.channel, address, 'password_reset', code);
}

/** `POST /auth/password/reset`: the code sets a new password and ends every session of the account. */
export async function resetPassword(deps: DomainDeps, input: { channel: CodeChannel; account: string; code: string; newPassword: string }): Promise<void> {
  const address = normaliseAddress(input.channel, input.account);
  if (!address) throw validationError({ code: ['验证码不正确或已过期'] });
  const passwordHash = await hashPassword(input.newPassword);
  const { id, userId } = await checkCode(deps, 'password_reset', input.channel, address, input.code);
  await inSequelizeTransaction(deps, async (tx) => {
    await useCode(deps, id, tx);
    await sqlRows(deps, 'UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1 RETURNING id', [userId, passwordHash], tx);
    await revokeAllSessions(deps, 'client', userId, tx);
  });
}
