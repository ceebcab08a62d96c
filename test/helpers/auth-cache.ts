import { expect } from 'vitest';
import type { AppDeps } from '../../api/context.js';
import type { ApiClient } from './http.js';
import { eventually } from './wait.js';

/** The session id (`sid` claim) a token is bound to. */
export function sessionIdOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { sid: string };
  return payload.sid;
}

/** Repeats an authenticated GET until the instance holds the session in its cache (listener up, entry stored). */
export async function warmAuthCache(api: ApiClient, deps: AppDeps, path: string, token: string): Promise<void> {
  await eventually(async () => {
    const res = await api.get(path, { token });
    expect(res.body.code).toBe(0);
    return deps.authCache?.get(sessionIdOf(token)) ?? null;
  });
}
