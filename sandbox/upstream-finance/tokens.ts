import { SignJWT, jwtVerify } from 'jose';
import type { AccountState, SandboxState } from './state.js';

/** Issues an HS256 JWT like `/finance_api_login` does. */
export async function issueToken(state: SandboxState, account: AccountState): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ uid: account.uid, username: account.username, gen: state.tokenGeneration })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + state.tokenTtlSeconds)
    .sign(state.tokenSecret);
}

/** The account behind a valid token; null when it is missing, malformed, expired or revoked. */
export async function verifyToken(state: SandboxState, authorization: string | undefined): Promise<AccountState | null> {
  const match = /^(Bearer|JWT)\s+(\S+)$/i.exec(authorization ?? '');
  const token = match?.[2];
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, state.tokenSecret, { algorithms: ['HS256'] });
    if (payload['gen'] !== state.tokenGeneration || typeof payload['username'] !== 'string') return null;
    return state.accounts.get(payload['username']) ?? null;
  } catch {
    return null;
  }
}
