import type { FieldErrors } from '../../lib/errors.js';
import { FORBIDDEN_FIELD_TYPES, SUPPORTED_FIELD_TYPES, UNIMPLEMENTED_FIELD_TYPES } from './contract.js';
import { OPTION_TYPES, SECRET_CAPABLE_TYPES } from './config-fields.js';

const OPERATORS = ['eq', 'neq', 'in', 'not_in'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkOptions(key: string, options: unknown, add: (path: string, reason: string) => void) {
  const path = `config.${key}.options`;
  if (Array.isArray(options)) {
    if (options.length === 0) add(path, `配置项 ${key} 的 options 不能为空`);
    options.forEach((o, i) => {
      const valid = isRecord(o) && typeof o.label === 'string' && ['string', 'number', 'boolean'].includes(typeof o.value);
      if (!valid) add(path, `配置项 ${key} 的第 ${i + 1} 个选项必须包含 label 与 value`);
    });
  } else if (isRecord(options)) {
    if (Object.keys(options).length === 0) add(path, `配置项 ${key} 的 options 不能为空`);
    if (Object.values(options).some((l) => typeof l !== 'string')) add(path, `配置项 ${key} 的 options 标签必须是文本`);
  } else {
    add(path, `配置项 ${key} 的类型需要 options 可选项`);
  }
}

function checkRules(key: string, rules: unknown, add: (path: string, reason: string) => void) {
  const path = `config.${key}.rules`;
  if (!isRecord(rules)) return add(path, `配置项 ${key} 的 rules 必须是对象`);
  if (rules.max !== undefined && (typeof rules.max !== 'number' || !Number.isFinite(rules.max) || rules.max < 0)) {
    add(`${path}.max`, `配置项 ${key} 的 rules.max 必须是非负数`);
  }
  if (rules.message !== undefined && typeof rules.message !== 'string') add(`${path}.message`, `配置项 ${key} 的 rules.message 必须是文本`);
  if (rules.pattern !== undefined) {
    try {
      if (typeof rules.pattern !== 'string') throw new Error('pattern');
      new RegExp(rules.pattern);
    } catch {
      add(`${path}.pattern`, `配置项 ${key} 的 rules.pattern 不是有效的正则表达式`);
    }
  }
}

function checkVisibleWhen(key: string, rule: unknown, keys: string[], add: (path: string, reason: string) => void) {
  const path = `config.${key}.visible_when`;
  if (!isRecord(rule)) return add(path, `配置项 ${key} 的 visible_when 必须是对象`);
  if (typeof rule.field !== 'string' || rule.field === key || !keys.includes(rule.field)) {
    add(`${path}.field`, `配置项 ${key} 的 visible_when.field 必须指向另一个已声明的配置项`);
  }
  if (typeof rule.operator !== 'string' || !OPERATORS.includes(rule.operator)) {
    add(`${path}.operator`, `配置项 ${key} 的 visible_when.operator 只能是 eq、neq、in 或 not_in`);
  } else if ((rule.operator === 'in' || rule.operator === 'not_in') && !Array.isArray(rule.value)) {
    add(`${path}.value`, `配置项 ${key} 的 visible_when.value 在 ${rule.operator} 运算时必须是数组`);
  }
}

/**
 * Field definitions of a manifest: only the supported types, with a reason naming the field
 * for a forbidden, unimplemented or unknown type and for each malformed attribute.
 */
export function checkConfigFields(config: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  const add = (path: string, reason: string) => (errors[path] ??= []).push(reason);
  const keys = Object.keys(config);
  for (const [key, raw] of Object.entries(config)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key)) add(`config.${key}`, `配置项名称 ${key} 只能包含字母、数字和下划线，且不能以数字开头`);
    if (!isRecord(raw)) {
      add(`config.${key}`, `配置项 ${key} 的定义必须是对象`);
      continue;
    }
    const type = String(raw.type);
    if ((FORBIDDEN_FIELD_TYPES as readonly string[]).includes(type)) {
      add(`config.${key}.type`, `配置项 ${key} 使用了禁止的类型 ${type}`);
      continue;
    }
    if ((UNIMPLEMENTED_FIELD_TYPES as readonly string[]).includes(type)) {
      add(`config.${key}.type`, `配置项 ${key} 的类型 ${type} 尚未实现，不能安装`);
      continue;
    }
    if (!(SUPPORTED_FIELD_TYPES as readonly string[]).includes(type)) {
      add(`config.${key}.type`, `配置项 ${key} 的类型 ${type} 不受支持`);
      continue;
    }
    if (OPTION_TYPES.includes(type)) checkOptions(key, raw.options, add);
    if (raw.rules !== undefined) checkRules(key, raw.rules, add);
    if (raw.visible_when !== undefined) checkVisibleWhen(key, raw.visible_when, keys, add);
    if (raw.secret === true && !SECRET_CAPABLE_TYPES.includes(type)) add(`config.${key}.secret`, `配置项 ${key} 的类型 ${type} 不能声明为密钥`);
    if (raw.width !== undefined && raw.width !== 'full' && raw.width !== 'half') add(`config.${key}.width`, `配置项 ${key} 的 width 只能是 full 或 half`);
    if (raw.secret_keys !== undefined) {
      const valid = Array.isArray(raw.secret_keys) && raw.secret_keys.every((k) => typeof k === 'string' && k.trim() !== '');
      if (type !== 'json' || !valid) add(`config.${key}.secret_keys`, `配置项 ${key} 的 secret_keys 只能用于 json 类型，且必须是非空文本数组`);
    }
  }
  return errors;
}
