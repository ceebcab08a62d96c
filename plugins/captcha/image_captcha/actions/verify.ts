import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { CaptchaConfig } from '../config.js';
import { fail, ok } from '../result.js';
import { answerHash, equalStrings, readToken } from '../token.js';

const ACTION = 'captcha.verify';

const payloadSchema = z.object({
  captcha_id: z.string().min(1).max(1024),
  answer: z.string().max(32),
});

/**
 * payload { captcha_id, answer } (case-insensitive) → data { valid, nonce?, expires_at? }.
 * Stateless: the same id verifies again until it expires. Single use is the platform's job:
 * it records `nonce` until `expires_at` and refuses a nonce it has seen.
 */
export async function verifyCaptcha(input: PluginExecuteInput, config: CaptchaConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) return fail(ACTION, '请输入验证码', {}, { valid: false, reason: 'invalid' });
  const claims = readToken(config.signingKey, parsed.data.captcha_id);
  if (!claims) return fail(ACTION, '验证码无效，请刷新后重试', {}, { valid: false, reason: 'invalid' });
  if (claims.expiresAt < Math.floor(Date.now() / 1000)) return fail(ACTION, '验证码已过期', {}, { valid: false, reason: 'expired' });
  if (parsed.data.answer.trim() === '' || !equalStrings(answerHash(config.signingKey, claims.nonce, parsed.data.answer), claims.hash)) {
    return fail(ACTION, '验证码不正确', {}, { valid: false, reason: 'mismatch' });
  }
  return ok(ACTION, '验证码正确', { valid: true, nonce: claims.nonce, expires_at: new Date(claims.expiresAt * 1000).toISOString() });
}
