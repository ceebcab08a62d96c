import { expect } from 'vitest';
import type { TestClient } from './billing.js';
import type { ApiClient } from './http.js';
import { registerKnownSecret } from './known-secrets.js';
import type { TestPlatform } from './platform.js';

const TOKEN_FORM = /^hp_pat_([0-9a-f]{16})_([0-9a-f]{64})$/;

export type CreatedAccessToken = { id: number; token: string; secret: string; data: Record<string, unknown> };

/**
 * Creates a personal access token with the client's login token (through `api`, the platform's
 * by default); its value and secret become known secrets (no later answer may hold them).
 */
export async function createAccessToken(platform: TestPlatform, client: TestClient, body: Record<string, unknown>, api: ApiClient = platform.api): Promise<CreatedAccessToken> {
  const res = await api.post('/api/v2/client/access-tokens', { token: client.token, body: { name: '脚本', expires_in_days: 30, ...body } });
  expect(res.body.code, res.body.message).toBe(0);
  const token = res.body.data.token as string;
  const match = TOKEN_FORM.exec(token);
  if (!match) throw new Error(`token of an unexpected form: ${token}`);
  registerKnownSecret(token);
  registerKnownSecret(match[2] as string);
  return { id: res.body.data.id as number, token, secret: match[2] as string, data: res.body.data };
}
