import { createHmac, randomBytes } from 'node:crypto';
import type { CertifyEndpoint, CertifyKind, CertifyRecord, CertifyState } from './state.js';
import { mask, takeFailure } from './state.js';

export type ApiAnswer = { status: number; body: Record<string, unknown> };

const ID_NUMBER = /^\d{17}[\dX]$/;

export const FAIL_REASONS: Record<string, string> = {
  FACE_MISMATCH: 'face does not match the photo on record',
  ID_MISMATCH: 'name and id number do not match',
  USER_CANCELLED: 'user cancelled the verification',
  TIMEOUT: 'verification session expired',
};

function success(data: Record<string, unknown>): ApiAnswer {
  return { status: 200, body: { code: 'SUCCESS', message: 'success', data } };
}

function failure(status: number, code: string, message: string): ApiAnswer {
  return { status, body: { code, message } };
}

function str(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  return typeof value === 'string' ? value.trim() : '';
}

function injected(state: CertifyState, endpoint: CertifyEndpoint): ApiAnswer | null {
  if (state.outage) return failure(503, 'SERVICE_UNAVAILABLE', 'provider outage');
  const mode = takeFailure(state, endpoint);
  if (mode === 'http_500') return failure(500, 'SYSTEM_ERROR', 'internal error, please retry');
  if (mode === 'business_error') return failure(400, 'SERVICE_REJECTED', 'request rejected by risk control');
  return null;
}

export function handleInit(state: CertifyState, body: Record<string, unknown>): ApiAnswer {
  state.counters.init += 1;
  const forced = injected(state, 'init');
  if (forced) return forced;
  const outerOrderNo = str(body, 'outer_order_no');
  const kind = str(body, 'kind');
  const name = str(body, 'name');
  const idNumber = str(body, 'id_number').toUpperCase();
  const callbackUrl = str(body, 'callback_url');
  if (outerOrderNo === '' || outerOrderNo.length > 64) return failure(400, 'INVALID_PARAMS', 'outer_order_no is required (max 64)');
  if (kind !== 'face' && kind !== 'cert_photo') return failure(400, 'INVALID_PARAMS', 'kind must be face or cert_photo');
  if (name === '') return failure(400, 'INVALID_PARAMS', 'name is required');
  if (!ID_NUMBER.test(idNumber)) return failure(400, 'INVALID_ID_NUMBER', 'id_number is malformed');
  const existing = state.byOrder.get(outerOrderNo);
  if (existing !== undefined) return success({ certify_id: existing, outer_order_no: outerOrderNo });
  const record: CertifyRecord = {
    certifyId: `CT${Date.now()}${randomBytes(6).toString('hex')}`,
    outerOrderNo,
    kind: kind as CertifyKind,
    maskedName: mask(name),
    maskedIdNumber: mask(idNumber),
    callbackUrl,
    status: 'INIT',
    failCode: null,
    createdAt: new Date().toISOString(),
  };
  state.records.set(record.certifyId, record);
  state.byOrder.set(outerOrderNo, record.certifyId);
  return success({ certify_id: record.certifyId, outer_order_no: outerOrderNo });
}

export function verifyUrlSignature(state: CertifyState, certifyId: string, expires: string): string {
  return createHmac('sha256', state.appSecret).update(`verify\n${certifyId}\n${expires}`).digest('hex');
}

export function handleUrl(state: CertifyState, body: Record<string, unknown>): ApiAnswer {
  state.counters.url += 1;
  const forced = injected(state, 'url');
  if (forced) return forced;
  const record = state.records.get(str(body, 'certify_id'));
  if (!record) return failure(404, 'CERTIFY_NOT_FOUND', 'certify_id does not exist');
  if (record.status === 'INIT') record.status = 'PROCESSING';
  const expires = String(Math.floor(Date.now() / 1000) + state.urlTtlSeconds);
  const sig = verifyUrlSignature(state, record.certifyId, expires);
  const url = `${state.baseUrl}/verify/${encodeURIComponent(record.certifyId)}?expires=${expires}&sig=${sig}`;
  return success({ certify_id: record.certifyId, certify_url: url, expires_in: state.urlTtlSeconds });
}

export function handleQuery(state: CertifyState, body: Record<string, unknown>): ApiAnswer {
  state.counters.query += 1;
  const forced = injected(state, 'query');
  if (forced) return forced;
  const record = state.records.get(str(body, 'certify_id'));
  if (!record) return failure(404, 'CERTIFY_NOT_FOUND', 'certify_id does not exist');
  return success({
    certify_id: record.certifyId,
    outer_order_no: record.outerOrderNo,
    status: record.status,
    passed: record.status === 'PASSED' ? 'T' : 'F',
    fail_code: record.failCode,
    fail_reason: record.failCode === null ? null : (FAIL_REASONS[record.failCode] ?? 'verification failed'),
  });
}
