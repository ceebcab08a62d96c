import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Access } from './access.js';

/** The one security scheme: the access token of the admin or the client surface, or a client's personal access token. */
export const BEARER_SCHEME = 'bearerAuth';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const camel = (words: string[]) =>
  words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');

/**
 * Words of our paths that end in `s` but name one thing, not a collection; extend when a path
 * adds one. `limits`: the one object of a resource's limits (`…/nat-rules/limits`).
 */
const SINGULAR_ENDING_IN_S = new Set(['status', 'limits']);

/** A plural noun names a collection (`products`, `task-runs`, `product-menus`). */
const isPlural = (segment: string) => /[^s]s$/.test(segment) && !SINGULAR_ENDING_IN_S.has(segment.split('-').at(-1) ?? '');

/**
 * The operation id of a route, from its method and path alone, so it never changes while the
 * route does not (SDK method names are built from it):
 * - the words are the path's fixed segments after `/api/v2` (or `/api`), parameters left out:
 *   the surface (`admin`, `client`, `site`) first, then the resource and any sub-resource or action;
 * - a path ending in a parameter is an item: GET `Get`, PUT/PATCH `Update`, DELETE `Delete`, POST `Post`;
 * - a path ending in a plural noun is a collection: GET `List`, POST `Create`;
 * - any other path ends in a singular noun or a verb: GET `Get`, PUT/PATCH `Update`, DELETE
 *   `Delete`, POST nothing (the last word is the action: `clientInvoicesPayBalance`).
 * `GET /api/v2/admin/product-menus` is `adminProductMenusList`; `POST /api/v2/client/invoices/{id}/pay/balance`
 * is `clientInvoicesPayBalance`. A route whose id would collide sets `operationId` itself.
 */
export function operationIdFor(method: Method, path: string): string {
  const segments = path.replace(/^\/api(\/v\d+)?\//, '').split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  const words = segments.filter((s) => !s.startsWith('{')).flatMap((s) => s.split('-'));
  let verb: string;
  if (method === 'put' || method === 'patch') verb = 'update';
  else if (method === 'delete') verb = 'delete';
  else if (last.startsWith('{')) verb = method === 'get' ? 'get' : method;
  else if (isPlural(last)) verb = method === 'get' ? 'list' : 'create';
  else verb = method === 'get' ? 'get' : '';
  return camel([...words, ...(verb ? [verb] : [])]);
}

/**
 * What an access rule means to an OpenAPI consumer: open routes declare `security: []`, every
 * other route the bearer scheme. Both `defineRoute` and the hand-made routes take it from the
 * same `access` that selects the auth middleware, so the document cannot disagree with it.
 */
export function documentAccess(access: Access) {
  return {
    security: access.surface === 'public' ? [] : [{ [BEARER_SCHEME]: [] }],
    'x-access': access,
    // Client routes: the personal access token scope this route needs, or `none` (docs/security.md "Personal access tokens").
    ...(access.surface === 'client' ? { 'x-token-scope': access.tokenScope ?? 'none' } : {}),
  };
}

/**
 * Checked when the routes are assembled (start-up and document generation): every operation
 * has an id, ids are unique, and its `security` is the one its `x-access` implies.
 */
export function assertOperations(definitions: OpenAPIHono['openAPIRegistry']['definitions']): void {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const def of definitions) {
    if (def.type !== 'route') continue;
    const { route } = def;
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const id = route.operationId;
    if (!id) problems.push(`${name}: 缺少 operationId`);
    else if (seen.has(id)) problems.push(`${name}: operationId ${id} 与 ${seen.get(id)} 重复`);
    else seen.set(id, name);
    const access = (route as { 'x-access'?: Access })['x-access'];
    if (!access) problems.push(`${name}: 缺少 x-access`);
    else if (JSON.stringify(route.security) !== JSON.stringify(documentAccess(access).security)) {
      problems.push(`${name}: security 与 x-access 不一致`);
    }
  }
  if (problems.length > 0) throw new Error(`OpenAPI 操作定义有误：\n${problems.join('\n')}`);
}
