import { UpstreamError } from '../client/upstream-error.js';
import { asInt } from '../read.js';

/** A required positive integer payload field, or a permanent invalid-input failure. */
export function requirePositiveInt(payload: Record<string, unknown>, field: string): number {
  const value = asInt(payload[field]);
  if (value === null || value <= 0) {
    throw new UpstreamError({ reason: 'invalid_input', kind: 'permanent', message: `参数错误：${field} 必须为正整数` });
  }
  return value;
}
