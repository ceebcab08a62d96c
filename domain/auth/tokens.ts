import { errors, jwtVerify, SignJWT } from 'jose';
import { deriveKey } from '../../lib/crypto.js';
import { unauthenticated } from '../../lib/errors.js';
import type { Surface } from '../../db/models/auth-session.js';

const ISSUER = 'hosting-platform';

export type AccessClaims = { surface: Surface; subjectId: number; sessionId: string };

const keys = new Map<string, Uint8Array>();
function keyFor(secretKey: string): Uint8Array {
  let key = keys.get(secretKey);
  if (!key) {
    key = new Uint8Array(deriveKey(secretKey, 'access-token'));
    keys.set(secretKey, key);
  }
  return key;
}

export async function signAccessToken(secretKey: string, claims: AccessClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(claims.surface)
    .setSubject(String(claims.subjectId))
    .setJti(claims.sessionId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(keyFor(secretKey));
}

// A token's claims never change, so a verified token is remembered until it expires (bounded).
// Revocation is not the token's business: the session check (and its cache) handles it.
const verified = new Map<string, { claims: AccessClaims; expiresAt: number; key: string }>();
const VERIFIED_MAX = 20_000;

/**
 * The claims of a token verified before and not yet expired, without awaiting anything (the hot
 * path of every signed-in request); null when it must go through `verifyAccessToken`.
 */
export function verifiedAccessClaims(secretKey: string, token: string): AccessClaims | null {
  const hit = verified.get(token);
  return hit && hit.key === secretKey && hit.expiresAt > Date.now() ? hit.claims : null;
}

/** Verifies signature, issuer and expiry; the caller checks the surface and the session row. */
export async function verifyAccessToken(secretKey: string, token: string): Promise<AccessClaims> {
  const hit = verified.get(token);
  if (hit && hit.key === secretKey) {
    if (hit.expiresAt > Date.now()) return hit.claims;
    verified.delete(token);
    throw unauthenticated('登录已过期，请重新登录');
  }
  const claims = await verifyAccessTokenUncached(secretKey, token);
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(token, { claims: claims.claims, expiresAt: claims.expiresAt, key: secretKey });
  return claims.claims;
}

async function verifyAccessTokenUncached(secretKey: string, token: string): Promise<{ claims: AccessClaims; expiresAt: number }> {
  try {
    const { payload } = await jwtVerify(token, keyFor(secretKey), { issuer: ISSUER, algorithms: ['HS256'] });
    const surface = payload.aud;
    const subjectId = Number(payload.sub);
    if ((surface !== 'admin' && surface !== 'client') || !Number.isInteger(subjectId) || typeof payload.sid !== 'string') {
      throw unauthenticated('登录凭证无效，请重新登录');
    }
    return { claims: { surface, subjectId, sessionId: payload.sid }, expiresAt: (payload.exp ?? 0) * 1000 };
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw unauthenticated('登录已过期，请重新登录');
    if (err instanceof errors.JOSEError) throw unauthenticated('登录凭证无效，请重新登录');
    throw err;
  }
}
