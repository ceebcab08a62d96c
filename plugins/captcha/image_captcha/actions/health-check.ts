import { create } from 'svg-captcha';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { CaptchaConfig } from '../config.js';
import { fail, ok } from '../result.js';
import { answerHash, issueToken, readToken } from '../token.js';

const ACTION = 'health_check';

/** Generates and verifies one captcha locally → data { generator: boolean, signing: boolean }. */
export async function healthCheck(_input: PluginExecuteInput, config: CaptchaConfig): Promise<PluginExecuteResult> {
  const captcha = create({ size: config.length, noise: config.noise });
  const generator = captcha.text.length === config.length && captcha.data.startsWith('<svg');
  const { token } = issueToken(config.signingKey, captcha.text, Math.floor(Date.now() / 1000) + 60);
  const claims = readToken(config.signingKey, token);
  const signing = claims !== null && claims.hash === answerHash(config.signingKey, claims.nonce, captcha.text.toUpperCase());
  if (generator && signing) return ok(ACTION, '图形验证码组件工作正常', { generator, signing });
  return fail(ACTION, '图形验证码组件自检失败', {}, { generator, signing });
}
