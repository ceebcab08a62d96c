import type { ConfigFieldDefinition } from './contract.js';

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const scalar = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);
  return scalar(a) && scalar(b) && String(a) === String(b);
}

function matches(current: unknown, expected: unknown): boolean {
  if (Array.isArray(current)) return current.some((c) => same(c, expected));
  return same(current, expected);
}

/** `visible_when` against the current values (eq, neq, in, not_in); no rule means visible. */
export function visibleWhenHolds(field: ConfigFieldDefinition, values: Record<string, unknown>): boolean {
  const rule = field.visible_when;
  if (!rule) return true;
  const current = values[rule.field];
  const list = Array.isArray(rule.value) ? (rule.value as unknown[]) : [rule.value];
  switch (rule.operator) {
    case 'eq':
      return matches(current, rule.value);
    case 'neq':
      return !matches(current, rule.value);
    case 'in':
      return list.some((v) => matches(current, v));
    case 'not_in':
      return !list.some((v) => matches(current, v));
    default:
      return true;
  }
}

/** Shown in the form: not hidden by `visible: false` and its `visible_when` holds. */
export function isFieldShown(field: ConfigFieldDefinition, values: Record<string, unknown>): boolean {
  return field.visible !== false && visibleWhenHolds(field, values);
}
