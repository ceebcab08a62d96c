import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { unknownBodyKeys } from '../../../api/middleware/body-keys.js';

/** The rule behind the refusal of undeclared JSON body keys (docs/api.md "Unknown JSON body keys"). */
const paths = (schema: z.ZodType, value: unknown) => unknownBodyKeys(schema, value).map((p) => p.join('.'));

describe('unknownBodyKeys', () => {
  const enrol = z.object({ code: z.string().optional() });

  it('names a key the object does not declare, and nothing when every key is declared', () => {
    expect(paths(enrol, { role: 'super_admin' })).toEqual(['role']);
    expect(paths(enrol, { code: '123456' })).toEqual([]);
    expect(paths(enrol, {})).toEqual([]);
  });

  it('looks at every depth: nested objects, arrays of objects, through optional, nullable, default and pipes', () => {
    const schema = z.object({
      items: z.array(z.object({ id: z.number(), sort_order: z.number() })).optional(),
      owner: z.object({ name: z.string() }).nullable().default(null),
      amount: z.string().pipe(z.string()),
      wrapped: z.preprocess((v) => v, z.object({ a: z.number() })),
    });
    expect(paths(schema, { items: [{ id: 1, sort_order: 2, note: 'x' }], owner: { name: 'a', extra: 1 }, amount: '1', wrapped: { a: 1, b: 2 } })).toEqual([
      'items.0.note',
      'owner.extra',
      'wrapped.b',
    ]);
  });

  it('takes any key where the schema declares a free map (record, loose object), still checking its declared keys', () => {
    const schema = z.object({ config: z.record(z.string(), z.unknown()), meta: z.looseObject({ inner: z.object({ x: z.number() }) }) });
    expect(paths(schema, { config: { anything: 1, at: { all: true } }, meta: { free: 1, inner: { x: 1, y: 2 } } })).toEqual(['meta.inner.y']);
  });

  it('accepts a key any shape of a union declares, naming what the closest shape does not', () => {
    const schema = z.union([z.object({ kind: z.literal('a'), a: z.number() }), z.object({ kind: z.literal('b'), b: z.number() })]);
    expect(paths(schema, { kind: 'b', b: 1 })).toEqual([]);
    expect(paths(schema, { kind: 'b', b: 1, c: 2 })).toEqual(['c']);
  });

  it('names keys shaped like Object.prototype members as any other', () => {
    expect(paths(enrol, JSON.parse('{"__proto__":1,"constructor":2}'))).toEqual(['__proto__', 'constructor']);
  });

  it('leaves values that are not objects to the validator', () => {
    expect(paths(enrol, 'text')).toEqual([]);
    expect(paths(enrol, [1, 2])).toEqual([]);
    expect(paths(enrol, null)).toEqual([]);
  });
});
