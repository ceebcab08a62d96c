import { expect } from 'vitest';
import { leakedSecrets } from './known-secrets.js';
import { assertResponseLimits, RESPONSE_LIMIT_NORMAL } from './limits.js';

export type EnvelopeBody<T = any> = { code: number; message: string; data: T; timestamp: number };

export type ApiResponse<T = any> = {
  status: number;
  headers: Headers;
  body: EnvelopeBody<T>;
  raw: string;
};

export type RequestOptions = {
  token?: string;
  body?: unknown;
  rawBody?: string;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  sizeLimit?: number;
};

const HAN = /\p{Script=Han}/u;

/**
 * Real HTTP against the test server. Every answer is checked on the way in: the envelope's
 * shape, a Chinese message, success only with code 0 and HTTP 200, the size and depth limits
 * of the spec, and that no known secret (test/helpers/known-secrets.ts) is in the body.
 */
export function createApiClient(baseUrl: string) {
  async function call<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const res = await fetch(url, { method, headers, body });
    const raw = await res.text();
    expect(leakedSecrets(raw), `${method} ${path} answered a secret`).toEqual([]);
    expect(res.headers.get('content-type') ?? '', `${method} ${path} content-type`).toContain('application/json');
    const parsed = JSON.parse(raw) as EnvelopeBody<T>;
    expect(Object.keys(parsed).sort(), `${method} ${path} envelope keys`).toEqual(['code', 'data', 'message', 'timestamp']);
    expect(Number.isInteger(parsed.code)).toBe(true);
    expect(Number.isInteger(parsed.timestamp)).toBe(true);
    expect(parsed.message, `${method} ${path} message is Chinese`).toMatch(HAN);
    expect(parsed.code === 0, `${method} ${path}: code 0 iff HTTP 200 (got ${res.status}/${parsed.code})`).toBe(res.status === 200);
    assertResponseLimits(raw, parsed, options.sizeLimit ?? RESPONSE_LIMIT_NORMAL);
    return { status: res.status, headers: res.headers, body: parsed, raw };
  }
  return {
    call,
    get: <T = any>(path: string, o?: RequestOptions) => call<T>('GET', path, o),
    post: <T = any>(path: string, o?: RequestOptions) => call<T>('POST', path, o),
    put: <T = any>(path: string, o?: RequestOptions) => call<T>('PUT', path, o),
    del: <T = any>(path: string, o?: RequestOptions) => call<T>('DELETE', path, o),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** Asserts a failure answer: its code, the HTTP status of that code, and no business data leaked. */
export function expectError(res: ApiResponse, code: number, status: number): void {
  expect({ code: res.body.code, status: res.status }).toEqual({ code, status });
}
