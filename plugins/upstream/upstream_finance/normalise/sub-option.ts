import type { ConfigSubOption } from '../../../../lib/catalogue-contract.js';
import { asInt, asRecord, asString } from '../read.js';
import type { ConfigOptionField } from './option-field.js';
import { normalisePricing } from './pricing.js';

export type { ConfigSubOption };

/** `"<value>|<label>"` → [value, label]; without a bar both are the whole text. */
export function splitValueLabel(name: string): [string, string] {
  const bar = name.indexOf('|');
  if (bar < 0) return [name.trim(), name.trim()];
  return [name.slice(0, bar).trim(), name.slice(bar + 1).trim()];
}

function parseOs(name: string): Pick<ConfigSubOption, 'value' | 'label' | 'version'> {
  const [value, rest] = splitValueLabel(name);
  const caret = rest.indexOf('^');
  let family: string;
  let version: string;
  if (caret >= 0) {
    family = rest.slice(0, caret).trim();
    version = rest.slice(caret + 1).trim();
  } else {
    const space = rest.indexOf(' ');
    family = space > 0 ? rest.slice(0, space) : rest;
    version = space > 0 ? rest.slice(space + 1).trim() : '';
  }
  family = family || '其他';
  return { value, label: version ? `${family} ${version}` : family, version: `${family}^${version}` };
}

function parseArea(name: string): Pick<ConfigSubOption, 'value' | 'label'> {
  const bar = name.indexOf('|');
  const text = bar >= 0 && name.indexOf('^', bar) > bar ? name.slice(bar + 1) : name;
  const caret = text.indexOf('^');
  if (caret < 0) return { value: text.trim(), label: text.trim() };
  return { value: text.slice(0, caret).trim(), label: text.slice(caret + 1).trim() };
}

function parsePlain(name: string): Pick<ConfigSubOption, 'value' | 'label'> {
  const [value, label] = splitValueLabel(name);
  return { value, label };
}

export function normaliseSubOption(raw: unknown, field: ConfigOptionField, quantity: boolean): ConfigSubOption | null {
  const sub = asRecord(raw);
  const id = sub ? asInt(sub['id']) : null;
  const name = sub ? asString(sub['option_name']) : null;
  if (!sub || id === null || name === null) return null;
  const parsed = field === 'os' ? parseOs(name) : field === 'area' ? parseArea(name) : parsePlain(name);
  const result: ConfigSubOption = { id, ...parsed, pricing: normalisePricing(Object.entries(asRecord(sub['pricing']) ?? {})) };
  if (quantity) {
    result.qty_minimum = asInt(sub['qty_minimum']) ?? 0;
    result.qty_maximum = asInt(sub['qty_maximum']) ?? 0;
  }
  return result;
}
