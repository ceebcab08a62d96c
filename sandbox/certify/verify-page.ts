import { deliverByMode } from './callback.js';
import { FAIL_REASONS, verifyUrlSignature, type ApiAnswer } from './api-handlers.js';
import { signaturesEqual } from './signing.js';
import type { CertifyState } from './state.js';

/**
 * The page the user opens from the QR code: `GET|POST /verify/<certify_id>?expires&sig&result=pass|fail[&reason=CODE]`.
 * Without `result` it only describes the session; with it the session finishes and the
 * signed callback is sent (awaited, so the answer tells whether it was delivered).
 */
export async function handleVerify(state: CertifyState, certifyId: string, query: URLSearchParams): Promise<ApiAnswer> {
  state.counters.verify += 1;
  const expires = query.get('expires') ?? '';
  const sig = query.get('sig') ?? '';
  if (!/^\d+$/.test(expires) || !signaturesEqual(verifyUrlSignature(state, certifyId, expires), sig)) {
    return { status: 403, body: { code: 'INVALID_URL_SIGNATURE', message: 'link is invalid' } };
  }
  if (Number(expires) < Math.floor(Date.now() / 1000)) return { status: 410, body: { code: 'URL_EXPIRED', message: 'link expired' } };
  const record = state.records.get(certifyId);
  if (!record) return { status: 404, body: { code: 'CERTIFY_NOT_FOUND', message: 'certify_id does not exist' } };
  const result = query.get('result');
  if (result === null) {
    return { status: 200, body: { certify_id: certifyId, status: record.status, hint: 'add result=pass or result=fail to finish' } };
  }
  if (result !== 'pass' && result !== 'fail') return { status: 400, body: { code: 'INVALID_PARAMS', message: 'result must be pass or fail' } };
  if (record.status === 'PASSED' || record.status === 'FAILED') {
    return { status: 409, body: { code: 'ALREADY_FINISHED', message: 'verification already finished', status: record.status } };
  }
  const reason = query.get('reason') ?? 'FACE_MISMATCH';
  record.status = result === 'pass' ? 'PASSED' : 'FAILED';
  record.failCode = result === 'pass' ? null : reason in FAIL_REASONS ? reason : 'FACE_MISMATCH';
  const deliveries = await deliverByMode(state, record);
  const delivery = deliveries[0];
  return {
    status: 200,
    body: {
      certify_id: certifyId,
      status: record.status,
      callback: delivery ? { http_status: delivery.http_status, error: delivery.error } : null,
      callbacks: deliveries.map((d) => ({ http_status: d.http_status, error: d.error })),
      callback_mode: state.callbackMode,
    },
  };
}
