/** What the plausible-body builder reads of an OpenAPI document: its component schemas. */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  minimum?: number;
  minLength?: number;
  minItems?: number;
  format?: string;
};
export type SchemaDocument = { components?: { schemas?: Record<string, Schema> } };

/** The schema behind `$ref`s and a leading `allOf`. */
export function resolveSchema(doc: SchemaDocument, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && current.$ref; i++) current = doc.components?.schemas?.[current.$ref.split('/').pop() as string] ?? {};
  if (current.allOf?.length) current = resolveSchema(doc, current.allOf[0]);
  return current;
}

/**
 * A body the schema accepts as often as a guess can (required fields only, first enum values,
 * small positive numbers, names that look like what they hold): for tests that walk every route
 * of the document and want its handler to run, not its validator to refuse.
 */
export function plausibleBody(doc: SchemaDocument, schema: Schema | undefined, name = 'body', depth = 0): unknown {
  const s = resolveSchema(doc, schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return plausibleBody(doc, alternatives.find((a) => resolveSchema(doc, a).type !== 'null') ?? alternatives[0], name, depth);
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return depth > 3 ? [] : Array.from({ length: s.minItems ?? 0 }, () => plausibleBody(doc, s.items, name, depth + 1));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = plausibleBody(doc, s.properties?.[key], key, depth + 1);
      return out;
    }
    default:
      if (s.format === 'email' || /email/.test(name)) return `plausible-${Math.random().toString(36).slice(2, 8)}@example.com`;
      if (/password/.test(name)) return 'plausible-Password-2026';
      if (/amount|price|money/.test(name)) return '1.00';
      if (/date/.test(name)) return '2026-01-01';
      return `plausible${Math.random().toString(36).slice(2, 8)}`.padEnd(s.minLength ?? 0, 'x');
  }
}
