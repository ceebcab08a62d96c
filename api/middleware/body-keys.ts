import type { z } from '@hono/zod-openapi';
import { cutText, validationError } from '../../lib/errors.js';
import type { RouteCheck } from './route-checks.js';

type Def = { type?: string; [key: string]: unknown };

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | null)?._zod?.def;
}

const WRAPPERS = ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional', 'success'];
const MAX_DEPTH = 12;

/**
 * The keys of a JSON body that its schema does not declare, as paths (`role`, `items.0.note`),
 * at every depth. An object declared open on purpose (`z.record`, `z.looseObject` /
 * `.passthrough()`: a plugin's config, settings values) takes any key; its declared keys are
 * still checked below it. A union accepts a key any of its shapes declares (the shape that
 * leaves the fewest unknown keys is reported). What the schema cannot tell (a transform, an
 * intersection) is taken as open.
 */
export function unknownBodyKeys(schema: unknown, value: unknown, path: readonly string[] = [], depth = 0): string[][] {
  const def = defOf(schema);
  if (!def || depth > MAX_DEPTH || value === null || typeof value !== 'object') return [];
  if (def.type && WRAPPERS.includes(def.type)) return unknownBodyKeys(def['innerType'], value, path, depth + 1);
  switch (def.type) {
    case 'pipe': {
      // The input side names the keys, unless it is a preprocess (a transform), whose output does.
      const input = defOf(def['in'])?.type === 'transform' ? def['out'] : def['in'];
      return unknownBodyKeys(input, value, path, depth + 1);
    }
    case 'lazy':
      return unknownBodyKeys((def['getter'] as () => unknown)(), value, path, depth + 1);
    case 'array':
      if (!Array.isArray(value)) return [];
      return value.flatMap((item, i) => unknownBodyKeys(def['element'], item, [...path, String(i)], depth + 1));
    case 'union': {
      const found = (def['options'] as unknown[]).map((option) => unknownBodyKeys(option, value, path, depth + 1));
      return found.reduce((fewest, keys) => (keys.length < fewest.length ? keys : fewest), found[0] ?? []);
    }
    case 'object': {
      if (Array.isArray(value)) return [];
      const shape = def['shape'] as Record<string, unknown>;
      const catchall = defOf(def['catchall'])?.type;
      const open = catchall !== undefined && catchall !== 'never';
      const unknown: string[][] = [];
      for (const key of Object.keys(value)) {
        if (Object.prototype.hasOwnProperty.call(shape, key)) {
          unknown.push(...unknownBodyKeys(shape[key], (value as Record<string, unknown>)[key], [...path, key], depth + 1));
        } else if (!open) {
          unknown.push([...path, key]);
        }
      }
      return unknown;
    }
    default:
      return [];
  }
}

function keysOf(schema: unknown): string[] {
  let def = defOf(schema);
  for (let i = 0; i < 10 && def && def.type !== 'object'; i++) {
    def = defOf(def['innerType'] ?? (defOf(def['in'])?.type === 'transform' ? def['out'] : def['in']));
  }
  return def?.type === 'object' ? Object.keys(def['shape'] as Record<string, unknown>) : [];
}

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\b/i;

/**
 * Refuses a JSON body carrying a key its route's schema does not declare (42200 naming it), as
 * undeclared query keys are refused (`unknownQueryCheck`): a key the route does not read (a
 * `role` sent to an enrolment) must not be accepted silently, and a misspelt field must not be
 * dropped. Bodies that are not JSON, or not parseable, are left to the route's validator.
 */
export function unknownBodyKeysCheck(schema: z.ZodType): RouteCheck {
  const declared = keysOf(schema);
  return async (c) => {
    if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) return;
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return;
    }
    const unknown = unknownBodyKeys(schema, body);
    if (unknown.length === 0) return;
    const names = unknown.map((p) => p.join('.') || '（空字段名）');
    const allowed = declared.length ? `可用字段：${declared.join('、')}` : '该接口的请求体不接受字段';
    // Object.fromEntries makes `__proto__` an own key like any other.
    const fields = Object.fromEntries(unknown.map((p, i) => [p.join('.') || '_', [`未知的字段：${names[i]}`]]));
    throw validationError(fields, cutText(`请求体中有未知的字段：${names.join('、')}（${allowed}）`, 200));
  };
}
