type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{type: ['object', 'null']}` and nothing else: the null half zod-to-openapi adds. */
const isNullHalf = (value: unknown) =>
  isNode(value) && Object.keys(value).length === 1 && Array.isArray(value.type) && value.type.length === 2 && value.type.includes('null');

/**
 * zod-to-openapi writes a nullable named schema (`paymentSchema.nullable()`) as
 * `allOf: [{$ref}, {type: ['object', 'null']}]`, which null never satisfies (the `$ref` is an
 * object) and which openapi-typescript turns into an unusable type. Rewritten in place to
 * `anyOf: [{$ref}, {type: 'null'}]`, what the zod schema means.
 */
export function fixNullableRefs(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) fixNullableRefs(item);
    return;
  }
  if (!isNode(node)) return;
  const parts = node.allOf;
  if (Array.isArray(parts) && parts.length === 2 && isNode(parts[0]) && typeof parts[0].$ref === 'string' && isNullHalf(parts[1])) {
    delete node.allOf;
    node.anyOf = [parts[0], { type: 'null' }];
  }
  for (const value of Object.values(node)) fixNullableRefs(value);
}
