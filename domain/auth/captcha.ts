import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import { randomToken } from '../../lib/crypto.js';
import { invokePlugin } from '../../plugins/runtime/invoke.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { SYSTEM_ACTOR } from '../../lib/actor.js';

export const CAPTCHA_IMAGE_PATH = '/api/v2/client/auth/captcha/image';
/** Challenges one address may ask for per minute (images are cheap, not free). */
const MAX_CHALLENGES_PER_IP_MINUTE = 30;

export type CaptchaChallenge = { challengeId: string; imageUrl: string; expiresAt: Date };

async function captchaPlugin(deps: DomainDeps, action: string, payload: Record<string, unknown>) {
  try {
    return await invokePlugin(deps, { domain: 'captcha', action, payload, actor: SYSTEM_ACTOR, timeoutMs: 5000 });
  } catch (err) {
    // No captcha plugin bound or enabled: the feature is off (a 404 like any absent resource, not an outage).
    if (err instanceof AppError) throw notFound('图形验证码未启用，请联系客服');
    throw err;
  }
}

/**
 * A captcha challenge from the captcha plugin (`captcha.generate`): the plugin's signed id and
 * its SVG stay here; the client gets a challenge id and the image's URL. Expired challenges of
 * the last hour are swept on the way.
 */
export async function createCaptchaChallenge(deps: DomainDeps, clientIp: string): Promise<CaptchaChallenge> {
  const recent = await sqlOne<{ n: number }>(
    deps,
    `SELECT count(*)::int AS n FROM captcha_challenges WHERE client_ip = $1 AND created_at > now() - interval '1 minute'`,
    [clientIp],
  );
  if ((recent?.n ?? 0) >= MAX_CHALLENGES_PER_IP_MINUTE) throw new AppError(ErrorCode.TOO_MANY_REQUESTS, '获取验证码过于频繁，请稍后再试');
  const generated = await captchaPlugin(deps, 'captcha.generate', {});
  const token = generated.data.captcha_id;
  const svg = generated.data.svg;
  const expiresAt = new Date(String(generated.data.expires_at));
  if (!generated.success || typeof token !== 'string' || typeof svg !== 'string' || Number.isNaN(expiresAt.getTime())) {
    throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '图形验证码生成失败，请稍后重试');
  }
  const id = randomToken(16);
  await sqlRows(deps, `DELETE FROM captcha_challenges WHERE expires_at < now() - interval '1 hour' RETURNING id`, []);
  await sqlRows(
    deps,
    'INSERT INTO captcha_challenges (id, captcha_token, svg, client_ip, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [id, token, svg, clientIp.slice(0, 64), expiresAt],
  );
  return { challengeId: id, imageUrl: `${deps.config.publicBaseUrl.replace(/\/+$/, '')}${CAPTCHA_IMAGE_PATH}?id=${id}`, expiresAt };
}

/** The image of an unused, unexpired challenge. */
export async function captchaImage(deps: DomainDeps, challengeId: string): Promise<string> {
  const row = /^[0-9a-f]{32}$/.test(challengeId)
    ? await sqlOne<{ svg: string }>(deps, 'SELECT svg FROM captcha_challenges WHERE id = $1 AND used_at IS NULL AND expires_at > now()', [challengeId])
    : null;
  if (!row) throw notFound('验证码不存在或已过期，请刷新');
  return row.svg;
}

/**
 * Uses a challenge once (a guarded update: one answer per image, right or wrong), then checks the
 * answer with the plugin (`captcha.verify`). A wrong, expired or reused challenge: 42200 on
 * `captcha_answer`.
 */
export async function consumeCaptcha(deps: DomainDeps, challengeId: string, answer: string): Promise<void> {
  const refused = () => validationError({ captcha_answer: ['图形验证码不正确或已过期，请刷新后重试'] });
  if (!/^[0-9a-f]{32}$/.test(challengeId)) throw refused();
  const row = await sqlOne<{ captcha_token: string }>(
    deps,
    'UPDATE captcha_challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now() RETURNING captcha_token',
    [challengeId],
  );
  if (!row) throw refused();
  const verified = await captchaPlugin(deps, 'captcha.verify', { captcha_id: row.captcha_token, answer: answer.slice(0, 32) });
  if (!verified.success || verified.data.valid !== true) throw refused();
}
