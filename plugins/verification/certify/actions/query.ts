import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callProvider, failureDiagnostics, failureMessage } from '../client.js';
import type { CertifyConfig } from '../config.js';
import { normaliseReason } from '../reasons.js';
import { fail, ok } from '../result.js';

const ACTION = 'verification.query';
const payloadSchema = z.object({ certify_id: z.string().trim().min(1).max(128) });

/**
 * payload { certify_id } → data { certify_id, passed, status: 1 (pending) | 2 (verified) |
 * 3 (failed), reason_code, reason_message }. The final state is decided here, not by callbacks.
 */
export async function queryCertify(input: PluginExecuteInput, config: CertifyConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) return fail(ACTION, '认证编号不正确');
  const path = '/certify/query';
  const outcome = await callProvider(config, path, { certify_id: parsed.data.certify_id }, input.context.signal);
  if (!outcome.ok) return fail(ACTION, failureMessage(outcome.kind), failureDiagnostics(outcome, path));
  const { status, passed } = outcome.data;
  if (outcome.data.certify_id !== parsed.data.certify_id) return fail(ACTION, failureMessage('bad_answer'), { endpoint: path });
  const base = { certify_id: parsed.data.certify_id };
  if (status === 'PASSED' && passed === 'T') {
    return ok(ACTION, '实名认证已通过', { ...base, passed: true, status: 2, reason_code: null, reason_message: null });
  }
  if (status === 'FAILED') {
    const reason = normaliseReason(outcome.data.fail_code);
    return ok(
      ACTION,
      `实名认证未通过：${reason.message}`,
      { ...base, passed: false, status: 3, reason_code: reason.code, reason_message: reason.message },
      { provider_status: status, provider_fail_code: outcome.data.fail_code ?? null, provider_fail_reason: outcome.data.fail_reason ?? null },
    );
  }
  if (status === 'INIT' || status === 'PROCESSING') {
    return ok(ACTION, '实名认证进行中', { ...base, passed: false, status: 1, reason_code: null, reason_message: null });
  }
  return fail(ACTION, failureMessage('bad_answer'), { endpoint: path, provider_status: typeof status === 'string' ? status : null });
}
