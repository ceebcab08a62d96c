import { encodeForm, type FormInput } from './form.js';
import { buildUpstreamUrl } from './http.js';

/** A fully built request for the custom module surface (`Authorization: JWT <jwt>`). */
export type ModuleRequest = { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };

export type ModulePageInput = { baseUrl: string; jwt: string; path: string; id: number | string; key: string; query?: Record<string, string | number> };

export type ModuleActionInput = { baseUrl: string; jwt: string; path: string; fields: FormInput };

/** A custom module page: the JWT scheme header plus `id`, `key` and `jwt` query parameters. */
export function buildModulePageRequest(input: ModulePageInput): ModuleRequest {
  const query = { ...input.query, id: input.id, key: input.key, jwt: input.jwt };
  return {
    url: buildUpstreamUrl(input.baseUrl, input.path, query),
    method: 'GET',
    headers: { Authorization: `JWT ${input.jwt}`, Accept: 'application/json' },
  };
}

/** A custom module action (e.g. `POST /provision/custom/<host id>` with a function name and fields). */
export function buildModuleActionRequest(input: ModuleActionInput): ModuleRequest {
  return {
    url: buildUpstreamUrl(input.baseUrl, input.path),
    method: 'POST',
    headers: { Authorization: `JWT ${input.jwt}`, Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: encodeForm(input.fields),
  };
}
