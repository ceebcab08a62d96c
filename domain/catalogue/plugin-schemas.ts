/**
 * What an upstream plugin's manifest (`info.extra`) offers products of type `other`:
 * `purchase_schema` (`template`, `fields`), `console_schema` (`template`, `sections`,
 * `actions`) and `status_mapping` (status → label). Read defensively: a schema without a
 * template is no schema (the product is then not purchasable online).
 */
export type PluginSchemas = {
  purchase: { template: string; fields: unknown[] } | null;
  console: { template: string; sections: unknown[]; actions: unknown[] } | null;
  statusMapping: Record<string, string> | null;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function template(value: Record<string, unknown>): string | null {
  return typeof value.template === 'string' && value.template.trim() !== '' ? value.template.trim() : null;
}

/**
 * Keeps `value` within `levels` levels of containers; anything deeper becomes its JSON text.
 * Schema elements are shown as list items, so the response nesting limit leaves them two
 * levels (an element and, e.g., its `options` map).
 */
export function clampDepth(value: unknown, levels: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (levels <= 0) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map((v) => clampDepth(v, levels - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clampDepth(v, levels - 1)]));
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value.slice(0, 100).map((v) => clampDepth(v, 2)) : [];
}

export function readPurchaseSchema(value: unknown): { template: string; fields: unknown[] } | null {
  if (!isObject(value)) return null;
  const name = template(value);
  return name ? { template: name, fields: list(value.fields) } : null;
}

export function readPluginSchemas(extra: unknown): PluginSchemas {
  if (!isObject(extra)) return { purchase: null, console: null, statusMapping: null };
  const consoleSchema = isObject(extra.console_schema) ? extra.console_schema : null;
  const consoleTemplate = consoleSchema ? template(consoleSchema) : null;
  const mapping = isObject(extra.status_mapping)
    ? Object.fromEntries(Object.entries(extra.status_mapping).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : null;
  return {
    purchase: readPurchaseSchema(extra.purchase_schema),
    console: consoleSchema && consoleTemplate ? { template: consoleTemplate, sections: list(consoleSchema.sections), actions: list(consoleSchema.actions) } : null,
    statusMapping: mapping,
  };
}
