import type { ConfigFieldDefinition } from './contract.js';
import { fieldLabel, MULTI_OPTION_TYPES, OPTION_TYPES, optionList } from './config-fields.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; error: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9-]{4,19}$/;
const STRING_TYPES = ['text', 'textarea', 'password', 'url', 'email', 'phone'];

function checkRules(label: string, field: ConfigFieldDefinition, value: string | number): string | null {
  const rules = field.rules;
  if (!rules) return null;
  if (rules.max !== undefined) {
    if (typeof value === 'string' && [...value].length > rules.max) return rules.message ?? `${label}最多 ${rules.max} 个字符`;
    if (typeof value === 'number' && value > rules.max) return rules.message ?? `${label}不能大于 ${rules.max}`;
  }
  if (rules.pattern !== undefined && !new RegExp(rules.pattern).test(String(value))) return rules.message ?? `${label}格式不正确`;
  return null;
}

function coerceString(label: string, field: ConfigFieldDefinition, raw: unknown): Coerced {
  if (typeof raw !== 'string') return { ok: false, error: `${label}必须是文本` };
  if (field.type === 'url') {
    let valid = false;
    try {
      valid = ['http:', 'https:'].includes(new URL(raw).protocol);
    } catch {
      valid = false;
    }
    if (!valid) return { ok: false, error: `${label}必须是有效的网址（http 或 https）` };
  }
  if (field.type === 'email' && !EMAIL.test(raw)) return { ok: false, error: `${label}必须是有效的邮箱地址` };
  if (field.type === 'phone' && !PHONE.test(raw)) return { ok: false, error: `${label}必须是有效的电话号码` };
  const rule = checkRules(label, field, raw);
  return rule ? { ok: false, error: rule } : { ok: true, value: raw };
}

function coerceNumber(label: string, field: ConfigFieldDefinition, raw: unknown): Coerced {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) return { ok: false, error: `${label}必须是数字` };
  const rule = checkRules(label, field, n);
  return rule ? { ok: false, error: rule } : { ok: true, value: n };
}

function coerceSwitch(label: string, raw: unknown): Coerced {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (raw === 1 || raw === '1' || raw === 'true') return { ok: true, value: true };
  if (raw === 0 || raw === '0' || raw === 'false') return { ok: true, value: false };
  return { ok: false, error: `${label}必须是开关值（是或否）` };
}

function coerceOptions(label: string, field: ConfigFieldDefinition, raw: unknown): Coerced {
  const options = optionList(field);
  const pick = (v: unknown) => options.find((o) => ['string', 'number', 'boolean'].includes(typeof v) && String(o.value) === String(v));
  if (MULTI_OPTION_TYPES.includes(field.type)) {
    if (!Array.isArray(raw)) return { ok: false, error: `${label}必须是可选项的数组` };
    const picked = raw.map(pick);
    if (picked.some((p) => p === undefined)) return { ok: false, error: `${label}包含不在可选项中的值` };
    return { ok: true, value: [...new Set(picked.map((p) => p?.value))] };
  }
  const one = pick(raw);
  return one ? { ok: true, value: one.value } : { ok: false, error: `${label}的取值不在可选项中` };
}

function coerceJson(label: string, raw: unknown): Coerced {
  if (typeof raw !== 'string') return { ok: true, value: raw };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false, error: `${label}不是有效的 JSON` };
  }
}

/**
 * One submitted value against its definition: type, options and rules (`max` is a length for
 * strings and a maximum for numbers; `pattern`; `message` replaces the default reason). The
 * caller treats empty values (undefined, null, '', []) before calling.
 */
export function coerceFieldValue(key: string, field: ConfigFieldDefinition, raw: unknown): Coerced {
  const label = fieldLabel(key, field);
  if (STRING_TYPES.includes(field.type)) return coerceString(label, field, raw);
  if (field.type === 'number') return coerceNumber(label, field, raw);
  if (field.type === 'switch') return coerceSwitch(label, raw);
  if (OPTION_TYPES.includes(field.type)) return coerceOptions(label, field, raw);
  if (field.type === 'json') return coerceJson(label, raw);
  return { ok: false, error: `${label}不能保存` };
}
