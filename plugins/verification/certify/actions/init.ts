import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callProvider, failureDiagnostics, failureMessage } from '../client.js';
import { callbackUrl, type CertifyConfig } from '../config.js';
import { fail, ok } from '../result.js';

const ACTION = 'verification.init';

const payloadSchema = z.object({
  outer_order_no: z.string().trim().min(1).max(64),
  kind: z.enum(['face', 'cert_photo']),
  name: z.string().trim().min(1).max(64),
  id_number: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .pipe(z.string().regex(/^\d{17}[\dX]$/)),
});

const FIELD_MESSAGES: Record<string, string> = {
  outer_order_no: '认证单号不正确',
  kind: '认证方式不正确',
  name: '请填写真实姓名',
  id_number: '身份证号格式不正确',
};

/** payload { outer_order_no, kind: face|cert_photo, name, id_number } → data { certify_id, outer_order_no }. */
export async function initCertify(input: PluginExecuteInput, config: CertifyConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    return fail(ACTION, FIELD_MESSAGES[field] ?? '认证参数不正确', { invalid_field: field });
  }
  const path = '/certify/init';
  const outcome = await callProvider(
    config,
    path,
    { ...parsed.data, callback_url: callbackUrl(config, input.context.urls.publicBaseUrl) },
    input.context.signal,
  );
  if (!outcome.ok) return fail(ACTION, failureMessage(outcome.kind), failureDiagnostics(outcome, path));
  const certifyId = outcome.data.certify_id;
  if (typeof certifyId !== 'string' || certifyId === '') return fail(ACTION, failureMessage('bad_answer'), { endpoint: path });
  return ok(ACTION, '实名认证已发起', { certify_id: certifyId, outer_order_no: parsed.data.outer_order_no });
}
