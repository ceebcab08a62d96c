import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callGateway, failureMessage } from '../client.js';
import type { SmsConfig } from '../config.js';
import { maskPhone } from '../mask.js';
import { fail, ok } from '../result.js';

const ACTION = 'sms.send';

const payloadSchema = z.object({
  phone: z
    .string()
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(z.string().regex(/^\+?\d{6,15}$/)),
  scene: z.string().trim().min(1).max(64),
  params: z.record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean()])).default({}),
});

/** payload { phone, scene, params? } → data { message_id }. The template comes from config `templates[scene]`. */
export async function sendSms(input: PluginExecuteInput, config: SmsConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    const message = field === 'phone' ? '手机号格式不正确' : field === 'scene' ? '短信场景不正确' : '短信参数不正确';
    return fail(ACTION, message, { invalid_field: field });
  }
  const { phone, scene, params } = parsed.data;
  const templateCode = Object.hasOwn(config.templates, scene) ? config.templates[scene] : undefined;
  if (templateCode === undefined) return fail(ACTION, '未配置该场景的短信模板', { scene });
  const outcome = await callGateway(
    config,
    '/v1/sms/send',
    {
      phone,
      sign_name: config.signName,
      template_code: templateCode,
      template_params: JSON.stringify(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))),
    },
    input.context.signal,
  );
  const diagnostics = { scene, template_code: templateCode, phone: maskPhone(phone) };
  if (!outcome.ok) {
    return fail(ACTION, failureMessage(outcome.kind), { ...diagnostics, kind: outcome.kind, http_status: outcome.httpStatus, provider_code: outcome.code, raw: outcome.raw });
  }
  const bizId = outcome.body.biz_id;
  if (typeof bizId !== 'string' || bizId === '') return fail(ACTION, failureMessage('bad_answer'), diagnostics);
  return ok(ACTION, '短信已发送', { message_id: bizId }, { ...diagnostics, request_id: outcome.body.request_id ?? null });
}
