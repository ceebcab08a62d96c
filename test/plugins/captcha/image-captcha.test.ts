import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import type * as SvgCaptcha from 'svg-captcha';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execute } from '../../../plugins/captcha/image_captcha/index.js';
import type { PluginExecuteInput } from '../../../plugins/runtime/contract.js';

const drawn = vi.hoisted(() => ({ texts: [] as string[] }));

vi.mock('svg-captcha', async (importOriginal) => {
  const original = await importOriginal<typeof SvgCaptcha>();
  return {
    ...original,
    create: (options: Parameters<typeof original.create>[0]) => {
      const captcha = original.create(options);
      drawn.texts.push(captcha.text);
      return captcha;
    },
  };
});

afterEach(() => {
  vi.useRealTimers();
});

const KEY = 'k'.repeat(32);

function input(action: string, payload: Record<string, unknown>, config: Record<string, unknown> = {}): PluginExecuteInput {
  return {
    domain: 'captcha',
    slug: 'image_captcha',
    key: 'image_captcha',
    action,
    payload,
    config: { signing_key: KEY, length: 5, noise: 1, ttl_seconds: 120, ...config },
    context: { traceId: 'trace-captcha', actor: SYSTEM_ACTOR, signal: AbortSignal.timeout(5000), urls: { publicBaseUrl: 'http://127.0.0.1:1' } },
  };
}

async function generate(config: Record<string, unknown> = {}): Promise<{ id: string; answer: string; svg: string }> {
  const result = await execute(input('captcha.generate', {}, config));
  expect(result.success).toBe(true);
  return { id: result.data.captcha_id as string, answer: drawn.texts[drawn.texts.length - 1] ?? '', svg: result.data.svg as string };
}

describe('the image captcha plugin', () => {
  it('generates an SVG and a signed id that does not reveal the answer', async () => {
    const { id, answer, svg } = await generate();
    expect(answer).toHaveLength(5);
    expect(svg.startsWith('<svg')).toBe(true);
    const payload = Buffer.from(id.split('.')[0] ?? '', 'base64url').toString('utf8');
    expect(Object.keys(JSON.parse(payload) as object).sort()).toEqual(['e', 'h', 'n']);
    expect(payload.toLowerCase()).not.toContain(answer.toLowerCase());
  });

  it('accepts the right answer in any case and returns the nonce for single-use tracking', async () => {
    const { id, answer } = await generate();
    const upper = await execute(input('captcha.verify', { captcha_id: id, answer: ` ${answer.toUpperCase()} ` }));
    expect(upper).toMatchObject({ success: true, message: '验证码正确', data: { valid: true } });
    expect(typeof upper.data.nonce).toBe('string');
    const lower = await execute(input('captcha.verify', { captcha_id: id, answer: answer.toLowerCase() }));
    expect(lower.data.nonce).toBe(upper.data.nonce);
  });

  it('refuses a wrong answer', async () => {
    const { id, answer } = await generate();
    const wrong = `${answer.slice(0, -1)}${answer.toLowerCase().endsWith('a') ? 'b' : 'a'}`;
    expect(await execute(input('captcha.verify', { captcha_id: id, answer: wrong }))).toMatchObject({
      success: false,
      message: '验证码不正确',
      data: { valid: false, reason: 'mismatch' },
    });
    expect((await execute(input('captcha.verify', { captcha_id: id, answer: '' }))).message).toBe('验证码不正确');
  });

  it('refuses an expired captcha even with the right answer', async () => {
    const { id, answer } = await generate();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 121_000);
    expect(await execute(input('captcha.verify', { captcha_id: id, answer }))).toMatchObject({
      success: false,
      message: '验证码已过期',
      data: { valid: false, reason: 'expired' },
    });
  });

  it('refuses ids signed with another key or tampered with', async () => {
    const { id, answer } = await generate();
    const otherKey = await execute(input('captcha.verify', { captcha_id: id, answer }, { signing_key: 'x'.repeat(32) }));
    expect(otherKey.message).toBe('验证码无效，请刷新后重试');
    const [payload = '', signature = ''] = id.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { e: number };
    const extended = Buffer.from(JSON.stringify({ ...claims, e: claims.e + 3600 })).toString('base64url');
    expect((await execute(input('captcha.verify', { captcha_id: `${extended}.${signature}`, answer }))).data.valid).toBe(false);
  });

  it('checks its own health and refuses a short signing key', async () => {
    expect(await execute(input('health_check', {}))).toMatchObject({ success: true, data: { generator: true, signing: true } });
    expect(await execute(input('captcha.generate', {}, { signing_key: 'short' }))).toMatchObject({ success: false, data: {} });
  });
});
