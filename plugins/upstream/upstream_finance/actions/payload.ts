import { invalidInput } from '../client/upstream-error.js';
import { asInt, asRecord, asString, type UnknownRecord } from '../read.js';

/** A required positive integer payload field, or a permanent invalid-input failure. */
export function requirePositiveInt(payload: UnknownRecord, field: string): number {
  const value = asInt(payload[field]);
  if (value === null || value <= 0) throw invalidInput(`参数错误：${field} 必须为正整数`);
  return value;
}

export function requireRecord(payload: UnknownRecord, field: string): UnknownRecord {
  const value = asRecord(payload[field]);
  if (!value) throw invalidInput(`参数错误：${field} 必须为对象`);
  return value;
}

export function optionalRecord(payload: UnknownRecord, field: string): UnknownRecord {
  if (payload[field] === undefined || payload[field] === null) return {};
  return requireRecord(payload, field);
}

/** One of the allowed string values. */
export function requireOneOf<T extends string>(payload: UnknownRecord, field: string, allowed: readonly T[]): T {
  const value = asString(payload[field]);
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw invalidInput(`参数错误：${field} 必须为 ${allowed.join('、')} 之一`);
  return found;
}

/** A string of at most `max` characters (empty when absent and not required). */
export function readText(payload: UnknownRecord, field: string, options: { required?: boolean; max: number; pattern?: RegExp }): string {
  const raw = payload[field];
  const value = raw === undefined || raw === null ? '' : asString(raw);
  if (value === null) throw invalidInput(`参数错误：${field} 必须为字符串`);
  if (options.required && value === '') throw invalidInput(`参数错误：缺少 ${field}`);
  if (value.length > options.max) throw invalidInput(`参数错误：${field} 不能超过 ${options.max} 个字符`);
  if (value !== '' && options.pattern && !options.pattern.test(value)) throw invalidInput(`参数错误：${field} 格式不正确`);
  return value;
}
