import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callProvider, failureDiagnostics, failureMessage } from '../client.js';
import type { CertifyConfig } from '../config.js';
import { fail, ok } from '../result.js';

const ACTION = 'verification.certify_url';
const payloadSchema = z.object({ certify_id: z.string().trim().min(1).max(128) });

/**
 * payload { certify_id } → data { certify_id, url, expires_in }. Only the URL travels; the
 * platform renders the QR image as an asset (see `renderQrSvg` in qr.ts).
 */
export async function certifyUrl(input: PluginExecuteInput, config: CertifyConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) return fail(ACTION, '认证编号不正确');
  const path = '/certify/url';
  const outcome = await callProvider(config, path, { certify_id: parsed.data.certify_id }, input.context.signal);
  if (!outcome.ok) return fail(ACTION, failureMessage(outcome.kind), failureDiagnostics(outcome, path));
  const url = outcome.data.certify_url;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return fail(ACTION, failureMessage('bad_answer'), { endpoint: path });
  const expiresIn = typeof outcome.data.expires_in === 'number' ? outcome.data.expires_in : null;
  return ok(ACTION, '认证链接已生成', { certify_id: parsed.data.certify_id, url, expires_in: expiresIn });
}
