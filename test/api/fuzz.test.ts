import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSession } from '../../domain/auth/sessions.js';
import { leakedSecrets } from '../helpers/known-secrets.js';
import { RESPONSE_LIMIT_NORMAL } from '../helpers/limits.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * Schema-driven fuzzing of every operation in the OpenAPI document, the routes of today and
 * every route added later: hostile path ids, query values, bodies and content types. Whatever
 * comes in, the answer is never a 5xx, JSON answers are the envelope with a Chinese message,
 * code 0 only with HTTP 200, and no answer exceeds the spec's 100 KB.
 * FUZZ_RUNS raises the number of requests per operation (default 12).
 * Besides the random requests, every operation gets the inputs that broke it before, each time:
 * keys named like Object.prototype's members in the body and the query, and `null` for every
 * documented body field (all at once and one at a time).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const HAN = /\p{Script=Han}/u;

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; schema?: Schema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  'x-access'?: { surface: 'public' | 'admin' | 'client' };
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const hostileStrings = [
  '',
  ' ',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u200b',
  '\u0007\u001b[31m',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%00%n%s',
  '𠜎😀',
  '١٢٣',
  '0x10',
  '+1',
  ' 1',
  '1.0',
  '1e3',
  '-1',
  '0',
  '2147483648',
  '9007199254740993',
  '1e309',
  'NaN',
  'Infinity',
  'null',
  '../../etc/passwd',
  '9'.repeat(400),
  '长'.repeat(3000),
];
/** Keys that are members of every plain object: a map keyed by input must not trip over them. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'] as const;
const hostileNumbers = [0, -1, 0.5, 1e-7, 2147483647, 2147483648, -2147483649, 2 ** 53 + 2, 1e21, 1e308, -1e308];
const hostileScalar = fc.oneof(
  fc.constantFrom<unknown>(...hostileStrings, ...hostileNumbers, null, true, false),
  fc.constantFrom<unknown>([], {}, [null], { a: { b: { c: 1 } } }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true }),
);
/** The object with one more own, enumerable key (even `__proto__`, which plain assignment would not add). */
function withKey(value: unknown, key: string, child: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.defineProperty({ ...value }, key, { value: child, enumerable: true, configurable: true, writable: true });
}
// Deeply nested input: refused with a message, never a stack overflow.
const deep = fc.constant(JSON.parse(`${'['.repeat(200)}1${']'.repeat(200)}`) as unknown);

function resolver(doc: Document) {
  return function resolve(schema: Schema | undefined): Schema {
    let current = schema ?? {};
    for (let i = 0; i < 10 && current.$ref; i++) current = doc.components?.schemas?.[current.$ref.split('/').pop() as string] ?? {};
    return current;
  };
}

/** Values shaped by the schema, each leaf replaced by a hostile value now and then. */
function arbitraryFor(doc: Document, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const resolve = resolver(doc);
  const s = resolve(schema);
  const shaped = (): fc.Arbitrary<unknown> => {
    if (depth > 4) return hostileScalar;
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives?.length) return fc.oneof(...alternatives.map((a) => arbitraryFor(doc, a, depth + 1)));
    if (s.allOf?.length) return arbitraryFor(doc, s.allOf[0], depth + 1);
    if (s.enum?.length) return fc.constantFrom(...s.enum);
    if (s.const !== undefined) return fc.constant(s.const);
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
    switch (type) {
      case 'integer':
        return fc.oneof(fc.integer({ min: s.minimum ?? -5, max: Math.min(s.maximum ?? 5, 1e6) }), fc.constantFrom(...hostileNumbers));
      case 'number':
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...hostileNumbers));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(arbitraryFor(doc, s.items, depth + 1), { maxLength: depth === 0 ? 30 : 4 });
      case 'object': {
        const entries = Object.entries(s.properties ?? {});
        if (entries.length === 0) return fc.dictionary(fc.string({ maxLength: 12 }), hostileScalar, { maxKeys: 4 });
        const record = Object.fromEntries(entries.map(([k, v]) => [k, arbitraryFor(doc, v, depth + 1)]));
        const prototypeKey = fc.oneof(
          { weight: 3, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), hostileScalar) },
        );
        return fc.tuple(fc.record(record, { requiredKeys: [] }), prototypeKey).map(([value, extra]) => (extra ? withKey(value, ...extra) : value));
      }
      default:
        return fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(...hostileStrings));
    }
  };
  return fc.oneof(
    { weight: 3, arbitrary: shaped() },
    { weight: 1, arbitrary: hostileScalar },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Percent-encodes a path segment; a lone surrogate goes out as the (invalid) UTF-8 bytes of one. */
function encodeSegment(value: string): string {
  return value.replace(/[\uD800-\uDFFF]/g, '\uFFFD').split('\uFFFD').map(encodeURIComponent).join('%ED%A0%80');
}

type FuzzRequest = { path: string; query: [string, string][]; headers: Record<string, string>; body?: string };

function requestArbitrary(doc: Document, path: string, op: Operation): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  const pathValue = fc.oneof(
    fc.constantFrom('1', '2', '3'),
    fc.constantFrom(...hostileStrings.filter((v) => v !== '')),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  );
  const pathArb: fc.Arbitrary<Record<string, string>> = fc.record(
    Object.fromEntries(
      [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
        const enumValues = resolver(doc)(params.find((p) => p.name === name)?.schema).enum;
        return [name, enumValues?.length ? fc.oneof(fc.constantFrom(...enumValues.map(String)), pathValue) : pathValue];
      }),
    ),
  );
  const queryNames = params.filter((p) => p.in === 'query');
  const queryValue = (p: Parameter) =>
    fc.oneof(
      arbitraryFor(doc, p.schema).map((v) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v))),
      fc.constantFrom(...hostileStrings),
    );
  const queryArb = fc.tuple(
    fc.subarray(queryNames).chain((chosen) => fc.tuple(...chosen.map((p) => queryValue(p).map((v) => [p.name, v] as [string, string])))),
    fc.array(fc.tuple(fc.constantFrom('limit', 'per_page', 'x', '', 'page[]', 'sort', ...PROTOTYPE_KEYS), fc.constantFrom(...hostileStrings)), { maxLength: 2 }),
  );
  const jsonSchema = op.requestBody?.content['application/json']?.schema;
  const bodyArb: fc.Arbitrary<{ type?: string; body?: string }> = op.requestBody
    ? fc.oneof(
        { weight: 6, arbitrary: arbitraryFor(doc, jsonSchema).map((v) => ({ type: 'application/json', body: JSON.stringify(v ?? {}) })) },
        { weight: 1, arbitrary: deep.map((v) => ({ type: 'application/json', body: JSON.stringify({ x: v }) })) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            { type: 'text/plain', body: '{"a":1}' },
            { type: 'application/x-www-form-urlencoded', body: 'a=1&b=%00' },
            { type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n' },
            { type: 'application/json', body: '{"a":' },
            { type: 'application/json', body: '"\\u0000"' },
            { type: 'application/json', body: '{"\\u0000":1}' },
            { type: 'application/json; charset=latin1', body: '{}' },
            { type: 'application/xml', body: '<a/>' },
            { type: undefined, body: '{}' },
            { type: 'application/json', body: '' },
          ),
        },
      )
    : fc.constant({});
  return fc.tuple(pathArb, queryArb, bodyArb).map(([values, [declared, extra], body]) => ({
    path: path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeSegment(String(values[name]))),
    query: [...declared, ...extra],
    headers: body.type ? { 'content-type': body.type } : ({} as Record<string, string>),
    ...(body.body !== undefined ? { body: body.body } : {}),
  }));
}

/** What is wrong with an answer, or null. */
function problemWith(status: number, contentType: string, raw: string): string | null {
  if (status >= 500) return `HTTP ${status}: ${raw.slice(0, 300)}`;
  if (Buffer.byteLength(raw) > RESPONSE_LIMIT_NORMAL) return `answer of ${Buffer.byteLength(raw)} bytes`;
  if (leakedSecrets(raw).length) return 'answered a known secret';
  if (!contentType.includes('application/json')) return status === 200 ? null : `non-JSON ${status} answer`;
  let body: { code?: unknown; message?: unknown };
  try {
    body = JSON.parse(raw) as typeof body;
  } catch {
    return 'unparseable JSON';
  }
  if (Object.keys(body).sort().join() !== 'code,data,message,timestamp') return `not the envelope: ${raw.slice(0, 200)}`;
  if (typeof body.message !== 'string' || !HAN.test(body.message)) return `message not Chinese: ${String(body.message)}`;
  if ((body.code === 0) !== (status === 200)) return `code ${String(body.code)} with HTTP ${status}`;
  return null;
}

/** The documented properties of a JSON body (resolved through $ref and allOf), or none. */
function bodyProperties(doc: Document, op: Operation): string[] {
  const resolve = resolver(doc);
  let schema = resolve(op.requestBody?.content['application/json']?.schema);
  if (schema.allOf?.length) schema = resolve(schema.allOf[0]);
  const alternatives = (schema.anyOf ?? schema.oneOf ?? []).map(resolve);
  return [...new Set([...Object.keys(schema.properties ?? {}), ...alternatives.flatMap((a) => Object.keys(a.properties ?? {}))])];
}

/** The fixed requests every operation gets: prototype keys (body and query) and nulls for every body field. */
function fixedRequests(doc: Document, path: string, method: string, op: Operation): { label: string; req: FuzzRequest }[] {
  // A delete is aimed at a row that does not exist, so that the subjects survive the pass.
  const id = method === 'delete' ? '999999' : '1';
  const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const values = resolver(doc)((op.parameters ?? []).find((p) => p.name === name)?.schema).enum;
    return encodeSegment(values?.length ? String(values[0]) : id);
  });
  const json = { 'content-type': 'application/json' };
  const requests: { label: string; req: FuzzRequest }[] = [
    { label: 'prototype keys in the query', req: { path: concrete, query: PROTOTYPE_KEYS.map((k) => [k, 'x']), headers: {} } },
  ];
  if (!op.requestBody || method === 'get') return requests;
  const asBody = (entries: [string, unknown][]) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
  requests.push({ label: 'prototype keys in the body', req: { path: concrete, query: [], headers: json, body: asBody(PROTOTYPE_KEYS.map((k) => [k, 'x'])) } });
  for (const key of PROTOTYPE_KEYS) {
    requests.push({ label: `body key ${key}`, req: { path: concrete, query: [], headers: json, body: asBody([[key, 'x']]) } });
  }
  const fields = bodyProperties(doc, op);
  if (fields.length > 0) {
    requests.push({ label: 'null for every field', req: { path: concrete, query: [], headers: json, body: asBody(fields.map((f) => [f, null])) } });
    for (const field of fields) {
      requests.push({ label: `null for ${field}`, req: { path: concrete, query: [], headers: json, body: asBody([[field, null]]) } });
    }
  }
  return requests;
}

describe('every documented operation, fuzzed', () => {
  let platform: TestPlatform;
  let doc: Document;
  const subjects: Partial<Record<'admin' | 'client', number>> = {};

  beforeAll(async () => {
    platform = await startTestPlatform();
    doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as Document;
    const client = await platform.api.post('/api/v2/client/register', { body: { email: `fuzz-${platform.id}@example.com`, password: 'fuzz-password-1' } });
    subjects.client = client.body.data.user.id as number;
    subjects.admin = (await platform.deps.db.models.Admin.findOne({ where: { username: 'root' } }))?.id;
  });
  afterAll(async () => platform?.close());

  /** A fresh session per request, straight from the domain: a fuzzed logout or password change may revoke any one. */
  async function tokenFor(surface: 'admin' | 'client'): Promise<string> {
    return (await issueSession(platform.deps, surface, subjects[surface] as number, { ip: '127.0.0.1', userAgent: 'fuzz' })).access_token;
  }

  async function send(method: string, req: FuzzRequest, bearer: string | undefined): Promise<string | null> {
    const url = new URL(req.path, platform.baseUrl);
    for (const [k, v] of req.query) url.searchParams.append(k, v);
    const res = await fetch(url, {
      method: method.toUpperCase(),
      headers: { accept: 'application/json', ...req.headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      ...(req.body !== undefined && method !== 'get' ? { body: req.body } : {}),
    });
    return problemWith(res.status, res.headers.get('content-type') ?? '', await res.text());
  }

  it('answers prototype keys and nulls in every field without a 5xx, on every operation', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    expect(operations.length).toBeGreaterThan(100);
    for (const { path, method, op } of operations) {
      const surface = op['x-access']?.surface ?? 'public';
      for (const { label, req } of fixedRequests(doc, path, method, op)) {
        const problem = await send(method, req, surface === 'public' ? undefined : await tokenFor(surface));
        if (problem) failures.push(`${method.toUpperCase()} ${path} (${label}): ${problem}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('never answers 5xx, always the envelope in Chinese and within the size limit', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    expect(operations.length).toBeGreaterThan(100);
    for (const { path, method, op } of operations) {
      const surface = op['x-access']?.surface ?? 'public';
      const result = await fc.check(
        fc.asyncProperty(requestArbitrary(doc, path, op), fc.boolean(), async (req, withToken) => {
          const bearer = withToken && surface !== 'public' ? await tokenFor(surface) : undefined;
          const problem = await send(method, req, bearer);
          if (problem) throw new Error(problem);
        }),
        { numRuns: RUNS, endOnFailure: true, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
      );
      if (result.failed) {
        const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        failures.push(`${method.toUpperCase()} ${path}: ${error} (seed ${result.seed}, input ${fc.stringify(result.counterexample).slice(0, 400)})`);
      }
    }
    expect(failures).toEqual([]);
  });
});
