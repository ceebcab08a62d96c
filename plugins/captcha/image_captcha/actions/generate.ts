import { create } from 'svg-captcha';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { CaptchaConfig } from '../config.js';
import { ok } from '../result.js';
import { issueToken } from '../token.js';

const ACTION = 'captcha.generate';
/** Characters easily confused with others are never drawn. */
const IGNORED = '0oO1iIlL';

/**
 * payload {} → data { captcha_id, svg, expires_at (ISO), ttl_seconds }. The SVG markup is for
 * the platform only: it keeps it server-side and serves it to clients as an image URL; the
 * answer is never returned, only its HMAC inside the signed `captcha_id`.
 */
export async function generateCaptcha(_input: PluginExecuteInput, config: CaptchaConfig): Promise<PluginExecuteResult> {
  const captcha = create({ size: config.length, noise: config.noise, ignoreChars: IGNORED, width: 40 + config.length * 25, height: 50 });
  const expiresAt = Math.floor(Date.now() / 1000) + config.ttlSeconds;
  const { token } = issueToken(config.signingKey, captcha.text, expiresAt);
  return ok(ACTION, '验证码已生成', {
    captcha_id: token,
    svg: captcha.data,
    expires_at: new Date(expiresAt * 1000).toISOString(),
    ttl_seconds: config.ttlSeconds,
  });
}
