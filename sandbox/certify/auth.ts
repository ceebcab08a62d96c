import type { IncomingMessage } from 'node:http';
import { header } from '../lib/http-util.js';
import { CLOCK_WINDOW_SECONDS, computeSignature, signaturesEqual } from './signing.js';
import type { CertifyState } from './state.js';

export type AuthFailure = { status: number; code: string; message: string };

/** Checks app id, clock window, nonce replay and signature of a signed API request. */
export function authenticate(state: CertifyState, req: IncomingMessage, body: string): AuthFailure | null {
  const appId = header(req, 'x-app-id');
  const timestamp = header(req, 'x-timestamp');
  const nonce = header(req, 'x-nonce');
  const signature = header(req, 'x-signature');
  if (appId !== state.appId) return { status: 401, code: 'INVALID_APP_ID', message: 'unknown app id' };
  if (!/^\d{1,12}$/.test(timestamp) || nonce.length < 8 || nonce.length > 64 || signature === '') {
    return { status: 401, code: 'MISSING_SIGNATURE', message: 'signature headers missing or malformed' };
  }
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > CLOCK_WINDOW_SECONDS) {
    return { status: 401, code: 'TIMESTAMP_EXPIRED', message: 'timestamp outside the allowed window' };
  }
  const expected = computeSignature(state.appSecret, { method: req.method ?? 'POST', path: req.url ?? '/', timestamp, nonce, body });
  if (!signaturesEqual(expected, signature)) return { status: 401, code: 'INVALID_SIGNATURE', message: 'signature mismatch' };
  if (!state.nonces.accept(`${appId}:${nonce}`, Date.now())) {
    return { status: 401, code: 'NONCE_REPLAYED', message: 'nonce already used' };
  }
  return null;
}
