import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

async function newUser(email: string): Promise<number> {
  const res = await platform.api.post('/api/v2/admin/users', { token, body: { email, password: 'audit-Secret-pw-2026' } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.id as number;
}

async function auditRows(requestId: string) {
  const res = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { request_id: requestId } });
  return res.body.data.list as Array<{ id: number; status: number; code: number; route: string }>;
}

describe('a junk request cannot take another admin write out of the audit', () => {
  it('a body with \\u0000 and a lone surrogate sent beside a disable: both have their own row', async () => {
    const userId = await newUser('race@example.com');
    const [junkNul, disabled, junkSurrogate] = await Promise.all([
      platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'a\u0000', name: 'x\u0000' } }),
      platform.api.post(`/api/v2/admin/users/${userId}/disable`, { token }),
      platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'b\ud800', name: '\udfff' } }),
    ]);
    expectError(junkNul, 42200, 422);
    expectError(junkSurrogate, 42200, 422);
    expect(disabled.body.code, disabled.body.message).toBe(0);
    await platform.deps.operations?.audit?.flush();

    const disableRows = await eventually(async () => {
      const rows = await auditRows(disabled.headers.get('x-request-id') as string);
      return rows.length ? rows : null;
    });
    expect(disableRows).toHaveLength(1);
    expect(disableRows[0]).toMatchObject({ route: '/api/v2/admin/users/{user}/disable', status: 200, code: 0 });

    for (const [junk, text] of [
      [junkNul, '\\u0000'],
      [junkSurrogate, '\\ud800'],
    ] as const) {
      const rows = await eventually(async () => {
        const found = await auditRows(junk.headers.get('x-request-id') as string);
        return found.length ? found : null;
      });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ route: '/api/v2/admin/auth/roles', status: 422, code: 42200 });
      const detail = await platform.api.get(`/api/v2/admin/audit-logs/${rows[0]?.id}`, { token });
      // What jsonb refuses is kept as escaped text.
      expect(JSON.parse(detail.body.data.request).body.code).toContain(text);
    }
  });
});
