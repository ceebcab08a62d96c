import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PluginExecuteInput } from '../../../plugins/runtime/contract.js';
import { execute } from '../../../plugins/sms/smsgate/index.js';
import { startSmsSandbox, type SmsSandbox } from '../../../sandbox/sms/server.js';

let sandbox: SmsSandbox;

beforeAll(async () => {
  sandbox = await startSmsSandbox({ port: 0, accessKeys: { 'ak-1': 'sk-1' }, signNames: ['示例云'], templates: ['SMS_100', 'SMS_200'] });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  sandbox.control.reset();
});

function input(action: string, payload: Record<string, unknown>, config: Record<string, unknown> = {}): PluginExecuteInput {
  return {
    domain: 'sms',
    slug: 'smsgate',
    key: 'smsgate',
    action,
    payload,
    config: {
      access_key_id: 'ak-1',
      access_key_secret: 'sk-1',
      base_url: sandbox.baseUrl,
      sign_name: '示例云',
      templates: { verify_code: 'SMS_100', renewal_reminder: 'SMS_200', invoice_unpaid: 'SMS_404' },
      ...config,
    },
    context: { traceId: 'trace-sms', actor: SYSTEM_ACTOR, signal: AbortSignal.timeout(5000), urls: { publicBaseUrl: 'http://127.0.0.1:1' } },
  };
}

const ENGLISH = /[A-Za-z]{5,}/;

describe('the smsgate SMS plugin', () => {
  it('sends a scene template and the sandbox holds the message', async () => {
    const result = await execute(input('sms.send', { phone: '139 0000 5678', scene: 'verify_code', params: { code: 4821, minutes: '5' } }));
    expect(result).toMatchObject({ success: true, action: 'sms.send', message: '短信已发送' });
    expect(Object.keys(result.data)).toEqual(['message_id']);
    expect(sandbox.control.messages()).toEqual([
      expect.objectContaining({ biz_id: result.data.message_id, phone: '13900005678', sign_name: '示例云', template_code: 'SMS_100', params: { code: '4821', minutes: '5' } }),
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toContain('13900005678');
  });

  it('accepts templates given as JSON text', async () => {
    const result = await execute(input('sms.send', { phone: '13900005678', scene: 'renewal_reminder' }, { templates: '{"renewal_reminder":"SMS_200"}' }));
    expect(result.success).toBe(true);
    expect(sandbox.control.messages()[0]?.template_code).toBe('SMS_200');
  });

  it('gives Chinese messages for every failure switch and keeps raw text in diagnostics', async () => {
    const cases = [
      ['invalid_phone', '手机号码无效，请检查后重试', 'invalid mobile number'],
      ['rate_limited', '短信发送过于频繁，请稍后再试', 'flow control'],
      ['http_500', '短信服务暂时不可用，请稍后重试', 'unknown error'],
    ] as const;
    for (const [mode, message, raw] of cases) {
      sandbox.control.setFailure(mode, 1);
      const result = await execute(input('sms.send', { phone: '13900005678', scene: 'verify_code', params: { code: '1' } }));
      expect(result).toMatchObject({ success: false, message, data: {} });
      expect(result.message).not.toMatch(ENGLISH);
      expect(String(result.diagnostics?.raw)).toContain(raw);
    }
    expect(sandbox.control.messages()).toHaveLength(0);
  });

  it('refuses unknown scenes, bad phones, unapproved templates and wrong secrets', async () => {
    expect((await execute(input('sms.send', { phone: '13900005678', scene: 'marketing' }))).message).toBe('未配置该场景的短信模板');
    expect((await execute(input('sms.send', { phone: 'abc', scene: 'verify_code' }))).message).toBe('手机号格式不正确');
    expect((await execute(input('sms.send', { phone: '13900005678', scene: 'invoice_unpaid' }))).message).toBe('短信签名或模板配置有误，请联系管理员');
    const wrong = await execute(input('sms.send', { phone: '13900005678', scene: 'verify_code' }, { access_key_secret: 'nope' }));
    expect(wrong.message).toBe('短信服务鉴权失败，请检查 AccessKey 配置');
    expect((await execute(input('sms.send', { phone: '13900005678', scene: 'verify_code' }, { templates: '[1]' }))).success).toBe(false);
    expect(sandbox.control.messages()).toHaveLength(0);
  });

  it('checks health with a signed account query', async () => {
    expect(await execute(input('health_check', {}))).toMatchObject({ success: true, data: { reachable: true, authenticated: true } });
    expect(await execute(input('health_check', {}, { access_key_id: 'other' }))).toMatchObject({ success: false, data: { authenticated: false } });
    const down = await execute(input('health_check', {}, { base_url: 'http://127.0.0.1:1' }));
    expect(down).toMatchObject({ success: false, message: '无法连接短信服务，请稍后重试', data: { reachable: false } });
  });
});
