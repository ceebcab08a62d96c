import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** A client of every route of the API, typed by path, method, parameters, body and answer. */
export type PlatformClient = Client<paths>;

/** What every failure answers: `code` (e.g. 40911), a Chinese `message`, `data` (field errors on 42200). */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/**
 * A typed client of the platform API at `baseUrl` (scheme and host, e.g. `https://api.example.cn`).
 * `token` is the `access_token` of an admin or a client login, sent as `Authorization: Bearer`;
 * leave it out for the open routes (site, login, register).
 */
export function createPlatformClient(baseUrl: string, token?: string): PlatformClient {
  return createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/** A failed call: the HTTP status and the error envelope's `code`, `message` and `data`. */
export class PlatformApiError extends Error {
  override name = 'PlatformApiError';
  readonly status: number;
  readonly code: number;
  readonly data: unknown;

  constructor(status: number, envelope: ErrorEnvelope) {
    super(envelope.message);
    this.status = status;
    this.code = envelope.code;
    this.data = envelope.data;
  }
}

type Answer<T> = { data?: { data: T }; error?: unknown; response: Response };

const isEnvelope = (value: unknown): value is ErrorEnvelope =>
  typeof value === 'object' && value !== null && 'code' in value && 'message' in value;

/**
 * The `data` of a successful answer, or a `PlatformApiError` for a failure:
 * `const me = await unwrap(client.GET('/api/v2/client/auth/me'))`.
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (data !== undefined) return data.data;
  const envelope = isEnvelope(error) ? error : { code: 50000, message: `HTTP ${response.status}`, data: null, timestamp: 0 };
  throw new PlatformApiError(response.status, envelope);
}
