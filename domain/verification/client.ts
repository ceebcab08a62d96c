import QRCode from 'qrcode';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { randomToken, sha256Hex } from '../../lib/crypto.js';
import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { afterCommit } from '../after-commit.js';
import { intentKeys, markIntentDone, recordIntent, TRY_NOW_GRACE_MS } from '../outbox/intents.js';
import { ATTEMPT_COLUMNS, type AttemptRecord } from './attempt-record.js';
import { ensureProviderSession, latestAttempt } from './attempts.js';
import { callVerificationPlugin } from './provider.js';
import { signalVerificationWorkflow } from './workflow-start.js';

export const SCAN_PATH = '/api/v2/client/verification/scan';
export const QR_IMAGE_PATH = '/api/v2/client/verification/qrcode/image';

export type UserVerification = {
  is_verified: number;
  verification_status: number | null;
  verification_name_mask: string | null;
  verification_id_mask: string | null;
  verified_at: Date | null;
};

export type VerificationStatusView = { user: UserVerification; attempt: AttemptRecord | null };

/** The caller's own state and latest attempt: nothing is taken from the request but the session. */
export async function getVerificationStatus(deps: DomainDeps, userId: number): Promise<VerificationStatusView> {
  const user = await sqlOne<UserVerification>(
    deps,
    'SELECT is_verified, verification_status, verification_name_mask, verification_id_mask, verified_at FROM users WHERE id = $1',
    [userId],
  );
  if (!user) throw notFound('用户不存在');
  return { user, attempt: await latestAttempt(deps, userId) };
}

const tokenHash = sha256Hex;

export type QrCode = { attempt: AttemptRecord; url: string; scanUrl: string };

/**
 * A QR code for the caller's pending attempt: a fresh scan token (stored hashed; a new code
 * replaces the previous one), the provider session opened if it is not yet. The QR encodes our
 * scan relay, never the provider's link itself; the image is served at `url` (an SVG), never inline.
 */
export async function issueQrCode(deps: DomainDeps, userId: number): Promise<QrCode> {
  const latest = await latestAttempt(deps, userId);
  if (!latest || latest.status !== 'pending' || (latest.expires_at !== null && latest.expires_at.getTime() <= Date.now())) {
    throw new AppError(ErrorCode.NOT_FOUND, '没有进行中的实名认证，请先发起认证');
  }
  const attempt = await ensureProviderSession(deps, latest);
  const token = randomToken(24);
  const updated = await sqlOne<AttemptRecord>(
    deps,
    `UPDATE verification_attempts SET scan_token_hash = $2, updated_at = now() WHERE id = $1 AND status = 'pending' RETURNING ${ATTEMPT_COLUMNS}`,
    [attempt.id, tokenHash(token)],
  );
  if (!updated) throw new AppError(ErrorCode.CONFLICT, '认证状态已变化，请刷新后重试');
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  const query = `token=${encodeURIComponent(token)}`;
  return { attempt: updated, url: `${base}${QR_IMAGE_PATH}?${query}`, scanUrl: `${base}${SCAN_PATH}?${query}` };
}

async function attemptByScanToken(deps: DomainDeps, token: string): Promise<AttemptRecord> {
  const attempt = /^[0-9a-f]{48}$/.test(token)
    ? await sqlOne<AttemptRecord>(
        deps,
        `SELECT ${ATTEMPT_COLUMNS} FROM verification_attempts WHERE scan_token_hash = $1 AND status = 'pending' AND expires_at > now()`,
        [tokenHash(token)],
      )
    : null;
  if (!attempt) throw notFound('二维码无效或已过期，请在电脑上重新获取');
  return attempt;
}

/** The SVG of a QR code issued by `issueQrCode` (it encodes the scan relay with the same token). */
export async function renderQrImage(deps: DomainDeps, token: string): Promise<string> {
  await attemptByScanToken(deps, token);
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  return QRCode.toString(`${base}${SCAN_PATH}?token=${encodeURIComponent(token)}`, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The scan relay: for a valid token of a pending, unexpired attempt, the provider's signed
 * certify page of that attempt (`verification.certify_url`). The target comes only from the
 * provider's answer, never from the request, and must be an absolute http(s) URL: no open redirect.
 */
export async function scanTarget(deps: DomainDeps, token: string): Promise<string> {
  const attempt = await ensureProviderSession(deps, await attemptByScanToken(deps, token));
  if (attempt.certify_id === null) throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务暂时不可用，请稍后重试');
  const result = await callVerificationPlugin(deps, 'verification.certify_url', { certify_id: attempt.certify_id });
  const url = result.data.url;
  if (!result.success || typeof url !== 'string') throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务暂时不可用，请稍后重试');
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务返回了无法识别的结果');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务返回了无法识别的结果');
  return target.toString();
}

export type CallbackInput = { headers: Record<string, string>; body: string; method: 'GET' | 'POST'; path: string };

/**
 * The provider's callback. First and before anything else, the plugin's
 * `verification.verify_callback` checks app id, clock window, HMAC signature and nonce; any
 * failure is 40001 (HTTP 401) and nothing happens. The callback carries no result: it names a
 * certify id, whose attempt's workflow is told to ask the provider now (one outbox row per
 * attempt, so repeats add nothing). Unknown certify id: 40400.
 */
export async function handleVerificationCallback(deps: DomainDeps, input: CallbackInput, traceId: string): Promise<{ attempt_no: string; accepted: boolean }> {
  let verified;
  try {
    verified = await callVerificationPlugin(deps, 'verification.verify_callback', { headers: input.headers, body: input.body, method: input.method, path: input.path }, traceId);
  } catch (err) {
    // Without a configured plugin nothing can be verified: refused like a bad signature.
    if (err instanceof AppError) throw new AppError(ErrorCode.SIGNATURE_INVALID, '实名认证回调签名校验失败');
    throw err;
  }
  const certifyId = verified.data.certify_id;
  if (!verified.success || typeof certifyId !== 'string') throw new AppError(ErrorCode.SIGNATURE_INVALID, '实名认证回调签名校验失败');
  const attempt = await sqlOne<{ attempt_no: string; status: string }>(deps, 'SELECT attempt_no, status FROM verification_attempts WHERE certify_id = $1', [certifyId]);
  if (!attempt) throw notFound('认证记录不存在');
  if (attempt.status !== 'pending') return { attempt_no: attempt.attempt_no, accepted: false };
  const key = intentKeys.verificationSignal(attempt.attempt_no);
  const recorded = await recordIntent(deps, { kind: 'signal_verification', key, payload: { attempt_no: attempt.attempt_no }, delayMs: TRY_NOW_GRACE_MS });
  if (recorded) {
    // A quick try of the durable row just written (the relay does it after the grace otherwise).
    afterCommit(deps, { label: `signal ${attempt.attempt_no}`, ifLost: 'the outbox relay performs its row' }, async () => {
      const note = await signalVerificationWorkflow(deps, attempt.attempt_no);
      await markIntentDone(deps, key, note);
    });
  }
  return { attempt_no: attempt.attempt_no, accepted: recorded };
}
