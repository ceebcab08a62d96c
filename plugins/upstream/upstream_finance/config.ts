import type { PluginExecuteInput } from '../../runtime/contract.js';
import { FINANCE_PROVIDER_KEY } from './constants.js';
import { UpstreamError } from './client/upstream-error.js';
import { asInt, asRecord, asString } from './read.js';

export type FinanceSettings = {
  baseUrl: string;
  account: string;
  apiKey: string;
  timeoutMs: number;
  /** The supplier whose token cache entry is used (null: keyed by address and account only). */
  supplierId: string | null;
  providerKey: string;
};

const DEFAULT_TIMEOUT_MS = 15_000;

function configError(message: string): UpstreamError {
  return new UpstreamError({ reason: 'config_invalid', kind: 'permanent', message });
}

function readTimeout(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_TIMEOUT_MS;
  const n = asInt(value);
  if (n === null || n < 100 || n > 120_000) throw configError('插件配置错误：请求超时需为 100 到 120000 之间的整数（毫秒）');
  return n;
}

function readBaseUrl(value: unknown): string {
  const text = asString(value)?.trim() ?? '';
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return text.replace(/\/+$/, '');
  } catch {
    throw configError('插件配置错误：接口地址不是有效的 HTTP(S) 地址');
  }
}

function readSupplierId(input: PluginExecuteInput): string | null {
  const context = asRecord(input.context) ?? {};
  const candidate = input.payload['supplier_id'] ?? context['supplier_id'] ?? context['supplierId'];
  const id = asString(candidate)?.trim();
  return id ? id : null;
}

/** Reads and checks the decrypted plugin configuration; plain http is allowed at this layer. */
export function readFinanceSettings(input: PluginExecuteInput): FinanceSettings {
  const account = asString(input.config['account'])?.trim() ?? '';
  const apiKey = asString(input.config['api_key']) ?? '';
  if (!account) throw configError('插件配置错误：未填写上游账号');
  if (!apiKey) throw configError('插件配置错误：未填写 API 密钥');
  return {
    baseUrl: readBaseUrl(input.config['base_url']),
    account,
    apiKey,
    timeoutMs: readTimeout(input.config['timeout_ms']),
    supplierId: readSupplierId(input),
    providerKey: FINANCE_PROVIDER_KEY,
  };
}
