import type { FinanceSettings } from '../config.js';
import { FINANCE_LOGIN_PATH } from '../constants.js';
import { asRecord, asString } from '../read.js';
import { sendUpstreamRequest, type UpstreamEnvelope, type UpstreamRequest } from './http.js';
import { readJwtExpiry } from './jwt-expiry.js';
import { isKnownStatus, isSuccessStatus, statusFailure } from './status-map.js';
import { FALLBACK_LIFETIME_MS, clearToken, readUsableToken, shareLogin, storeToken, tokenCacheKey, type CachedToken } from './token-cache.js';
import { UpstreamError } from './upstream-error.js';

export type SessionTrace = { logins: number; reloginsAfterRejection: number };

export type FinanceSession = {
  /**
   * An authenticated call (`Authorization: Bearer`, or the JWT scheme for custom module
   * requests); a 401/405 clears the cached token, logs in again and retries once. Throws
   * `UpstreamError` on failure.
   */
  call(request: UpstreamRequest): Promise<UpstreamEnvelope>;
  /** Forces a fresh login and caches the token. */
  login(): Promise<CachedToken>;
  /**
   * Before catalogue reads, which answer an expired token with anonymous prices instead of a
   * 405: make sure the cached token is really accepted (log in, or probe `/v1/user`).
   */
  ensureVerifiedSession(): Promise<void>;
  trace: SessionTrace;
};

const UNKNOWN_OUTCOME_REASONS = new Set(['timeout', 'network_error', 'upstream_unavailable', 'invalid_response', 'unknown_status']);

/**
 * A committing call that failed after it may have reached the upstream: its outcome is
 * unknown. Failures the upstream answered clearly (maintenance, business errors) stay as they are.
 */
function outcomeUnknown(err: unknown): unknown {
  if (!(err instanceof UpstreamError) || !UNKNOWN_OUTCOME_REASONS.has(err.reason)) return err;
  const message = err.reason === 'timeout' ? '上游请求超时，处理结果未知，请先核对订单再重试' : '上游未返回明确结果，处理结果未知，请先核对订单再重试';
  return err.reclassify('ambiguous', message);
}

function readJwt(envelope: UpstreamEnvelope): string | null {
  return asString(envelope.top['jwt']) ?? asString(asRecord(envelope.data)?.['jwt']);
}

export function createFinanceSession(settings: FinanceSettings, signal: AbortSignal): FinanceSession {
  const key = tokenCacheKey(settings);
  const transport = { baseUrl: settings.baseUrl, timeoutMs: settings.timeoutMs, signal };
  const trace: SessionTrace = { logins: 0, reloginsAfterRejection: 0 };
  let verified = false;

  async function performLogin(): Promise<CachedToken> {
    const envelope = await sendUpstreamRequest(transport, {
      method: 'POST',
      path: FINANCE_LOGIN_PATH,
      form: { username: settings.account, password: settings.apiKey },
    });
    if (envelope.status === 400) {
      throw new UpstreamError({ reason: 'login_failed', kind: 'permanent', message: '上游登录失败：账号或 API 密钥错误', upstreamStatus: 400, upstreamMessage: envelope.msg });
    }
    if (!isSuccessStatus(envelope.status)) throw statusFailure(envelope.status, envelope.msg);
    const jwt = readJwt(envelope);
    if (!jwt) throw new UpstreamError({ reason: 'login_failed', kind: 'permanent', message: '上游登录成功但未返回令牌', upstreamStatus: envelope.status });
    const now = Date.now();
    const token = { jwt, obtainedAt: now, expiresAt: readJwtExpiry(jwt) ?? now + FALLBACK_LIFETIME_MS };
    storeToken(key, token);
    return token;
  }

  async function login(): Promise<CachedToken> {
    clearToken(key);
    const token = await shareLogin(key, performLogin);
    trace.logins += 1;
    verified = true;
    return token;
  }

  function authorise(request: UpstreamRequest, jwt: string): UpstreamRequest {
    const auth = request.auth ?? 'bearer';
    const scheme = auth === 'bearer' ? 'Bearer' : 'JWT';
    const query = auth === 'module_page' ? { ...request.query, jwt } : request.query;
    return { ...request, query, headers: { ...request.headers, Authorization: `${scheme} ${jwt}` } };
  }

  async function attempt(request: UpstreamRequest, jwt: string): Promise<UpstreamEnvelope | 'rejected'> {
    let envelope: UpstreamEnvelope;
    try {
      envelope = await sendUpstreamRequest(transport, authorise(request, jwt));
    } catch (err) {
      if (err instanceof UpstreamError && err.httpStatus === 401) return 'rejected';
      clearToken(key);
      throw request.commits ? outcomeUnknown(err) : err;
    }
    if (envelope.status === 405) return 'rejected';
    if (request.commits && !isKnownStatus(envelope.status)) throw outcomeUnknown(statusFailure(envelope.status, envelope.msg));
    return envelope;
  }

  async function call(request: UpstreamRequest): Promise<UpstreamEnvelope> {
    const cached = readUsableToken(key) ?? (await login());
    let outcome = await attempt(request, cached.jwt);
    if (outcome === 'rejected') {
      trace.reloginsAfterRejection += 1;
      outcome = await attempt(request, (await login()).jwt);
      if (outcome === 'rejected') {
        clearToken(key);
        throw statusFailure(405, '重新登录后仍被拒绝');
      }
    }
    if (!isSuccessStatus(outcome.status)) throw statusFailure(outcome.status, outcome.msg);
    verified = true;
    return outcome;
  }

  async function ensureVerifiedSession(): Promise<void> {
    if (verified) return;
    if (!readUsableToken(key)) {
      await login();
      return;
    }
    await call({ method: 'GET', path: '/v1/user' });
  }

  return { call, login, ensureVerifiedSession, trace };
}
