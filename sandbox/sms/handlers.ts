import { randomBytes } from 'node:crypto';
import { signParams, signaturesEqual } from './signing.js';
import { CLOCK_WINDOW_SECONDS, takeFailure, type SmsState } from './state.js';

export type Answer = { status: number; body: Record<string, unknown> };

const PHONE = /^(\+?86)?1[3-9]\d{9}$/;

function requestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}

function error(status: number, code: string, message: string): Answer {
  return { status, body: { code, message, request_id: requestId() } };
}

/** Only string values are accepted: the signature is defined over strings. */
export function stringParams(body: Record<string, unknown>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string') return null;
    out[k] = v;
  }
  return out;
}

export function authenticate(state: SmsState, params: Record<string, string>): Answer | null {
  const keyId = params.access_key_id ?? '';
  const secret = Object.hasOwn(state.accessKeys, keyId) ? state.accessKeys[keyId] : undefined;
  if (secret === undefined) return error(403, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
  const timestamp = params.timestamp ?? '';
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > CLOCK_WINDOW_SECONDS) {
    return error(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.');
  }
  const nonce = params.nonce ?? '';
  if (nonce.length < 8 || nonce.length > 64) return error(400, 'MissingSignatureNonce', 'SignatureNonce is mandatory.');
  if (!signaturesEqual(signParams(secret, params), params.signature ?? '')) {
    return error(403, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.');
  }
  if (!state.nonces.accept(`${keyId}:${nonce}`, Date.now())) return error(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
  return null;
}

export function handleSend(state: SmsState, params: Record<string, string>): Answer {
  const failure = takeFailure(state);
  if (failure === 'http_500') return error(500, 'InternalError', 'The request processing has failed due to some unknown error.');
  if (failure === 'rate_limited') return error(429, 'isv.BUSINESS_LIMIT_CONTROL', 'triggered day or minute flow control');
  const phone = (params.phone ?? '').replace(/\s+/g, '');
  if (failure === 'invalid_phone' || !PHONE.test(phone)) return error(400, 'isv.MOBILE_NUMBER_ILLEGAL', 'invalid mobile number');
  const signName = params.sign_name ?? '';
  if (signName === '' || (state.signNames !== null && !state.signNames.includes(signName))) {
    return error(400, 'isv.SMS_SIGNATURE_ILLEGAL', 'sign name is not approved');
  }
  const templateCode = params.template_code ?? '';
  if (templateCode === '' || (state.templates !== null && !state.templates.includes(templateCode))) {
    return error(400, 'isv.SMS_TEMPLATE_ILLEGAL', 'template code is not approved');
  }
  let templateParams: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(params.template_params ?? '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    templateParams = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    return error(400, 'isv.INVALID_JSON_PARAM', 'template_params must be a JSON object');
  }
  const bizId = `${Date.now()}^${randomBytes(6).toString('hex')}`;
  state.messages.push({
    biz_id: bizId,
    phone,
    sign_name: signName,
    template_code: templateCode,
    params: templateParams,
    access_key_id: params.access_key_id ?? '',
    received_at: new Date().toISOString(),
  });
  return { status: 200, body: { code: 'OK', message: 'OK', biz_id: bizId, request_id: requestId() } };
}

export function handleAccount(state: SmsState, params: Record<string, string>): Answer {
  return {
    status: 200,
    body: { code: 'OK', message: 'OK', request_id: requestId(), account: { access_key_id: params.access_key_id, status: 'active', sign_names: state.signNames } },
  };
}
