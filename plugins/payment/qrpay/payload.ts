import { formatMoney, parseMoney } from '../../../lib/money.js';

/** Our payment number, refund request number: printable ASCII, at most 64 characters. */
const TRADE_NO = /^[\x21-\x7e]{1,64}$/;
/** Yuan with exactly two fraction digits, e.g. `12.30`. */
const AMOUNT = /^(0|[1-9]\d{0,9})\.\d{2}$/;

export type Read<T> = { ok: true; value: T } | { ok: false; message: string };

function raw(payload: Record<string, unknown>, key: string): string | null {
  const value = payload[key];
  return typeof value === 'string' ? value.trim() : null;
}

export function readTradeNo(payload: Record<string, unknown>, key: string, label: string): Read<string> {
  const value = raw(payload, key);
  if (!value) return { ok: false, message: `缺少${label}` };
  if (!TRADE_NO.test(value)) return { ok: false, message: `${label}无效（最多 64 个可见 ASCII 字符）` };
  return { ok: true, value };
}

/** A positive amount in yuan, two fraction digits, kept as a decimal string. */
export function readAmount(payload: Record<string, unknown>, key: string, label: string): Read<string> {
  const value = raw(payload, key);
  if (!value) return { ok: false, message: `缺少${label}` };
  const parsed = AMOUNT.test(value) ? parseMoney(value) : null;
  if (!parsed || parsed.lte(0)) return { ok: false, message: `${label}无效（以元为单位、两位小数且大于 0）` };
  return { ok: true, value: formatMoney(parsed) };
}

export function readText(payload: Record<string, unknown>, key: string, label: string, max: number, required: boolean): Read<string | null> {
  const value = raw(payload, key);
  if (!value) return required ? { ok: false, message: `缺少${label}` } : { ok: true, value: null };
  if ([...value].length > max) return { ok: false, message: `${label}过长（最多 ${max} 个字符）` };
  return { ok: true, value };
}

export function readUrl(payload: Record<string, unknown>, key: string, label: string): Read<string | null> {
  const value = raw(payload, key);
  if (!value) return { ok: true, value: null };
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { ok: true, value };
  } catch {
    // fall through
  }
  return { ok: false, message: `${label}无效` };
}

/** A gateway amount normalised to two digits, or null when absent or not an amount. */
export function gatewayAmount(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{1,12}(\.\d{1,2})?$/.test(value)) return null;
  const parsed = parseMoney(value);
  return parsed ? formatMoney(parsed) : null;
}
