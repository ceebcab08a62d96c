/** Logs in through the public admin endpoint and returns the bearer token (only the two fields are sent: the route refuses unknown ones). */
export async function loginAdmin(baseUrl: string, credentials: { username: string; password: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v2/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: credentials.username, password: credentials.password }),
    signal: AbortSignal.timeout(30_000),
  });
  const body: unknown = await res.json().catch(() => null);
  const token = readToken(body);
  if (res.status !== 200 || !token) throw new Error(`admin login failed: HTTP ${res.status} ${JSON.stringify(body)}`);
  return token;
}

function readToken(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('data' in body)) return null;
  const data = body.data;
  if (typeof data !== 'object' || data === null || !('access_token' in data)) return null;
  return typeof data.access_token === 'string' ? data.access_token : null;
}
