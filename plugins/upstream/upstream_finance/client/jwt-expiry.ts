import { asInt, asRecord } from '../read.js';

/** The `exp` of a JWT in epoch milliseconds, read without verifying (we are not its audience). */
export function readJwtExpiry(jwt: string): number | null {
  const payload = jwt.split('.')[1];
  if (!payload) return null;
  try {
    const claims = asRecord(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    const exp = claims ? asInt(claims['exp']) : null;
    return exp === null ? null : exp * 1000;
  } catch {
    return null;
  }
}
