import type { KeyObject } from 'node:crypto';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from './constants.js';
import { loadPrivateKey, loadPublicKey } from './signing.js';

export type QrpayConfig = {
  appId: string;
  gatewayUrl: string;
  merchantPrivateKey: KeyObject;
  gatewayPublicKey: KeyObject;
  timeoutMs: number;
};

export type ConfigResult = { ok: true; config: QrpayConfig } | { ok: false; message: string; field: string };

function text(config: Record<string, unknown>, key: string): string {
  const value = config[key];
  return typeof value === 'string' ? value.trim() : '';
}

function timeout(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return DEFAULT_TIMEOUT_MS;
  return Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, Math.floor(n)));
}

/**
 * Parsed keys by their configured text: parsing a 2048-bit PEM costs far more than the
 * signature itself, and every notification and call would parse the same two keys again.
 */
const parsedKeys = new Map<string, KeyObject>();
const PARSED_KEYS_MAX = 64;

function cachedKey(text: string, load: (text: string) => KeyObject): KeyObject {
  const found = parsedKeys.get(text);
  if (found) return found;
  const key = load(text);
  if (parsedKeys.size >= PARSED_KEYS_MAX) parsedKeys.clear();
  parsedKeys.set(text, key);
  return key;
}

/** Reads the decrypted plugin configuration; messages are Chinese and never contain the values. */
export function parseQrpayConfig(config: Record<string, unknown>): ConfigResult {
  const appId = text(config, 'app_id');
  if (appId === '') return { ok: false, field: 'app_id', message: '支付插件未配置应用 ID' };

  const gatewayUrl = text(config, 'gateway_url');
  let parsedUrl: URL | null = null;
  try {
    parsedUrl = new URL(gatewayUrl);
  } catch {
    parsedUrl = null;
  }
  if (!parsedUrl || (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:')) {
    return { ok: false, field: 'gateway_url', message: '支付网关地址未配置或格式无效' };
  }

  let merchantPrivateKey: KeyObject;
  try {
    merchantPrivateKey = cachedKey(text(config, 'merchant_private_key'), loadPrivateKey);
    if (merchantPrivateKey.asymmetricKeyType !== 'rsa') throw new Error('not rsa');
  } catch {
    return { ok: false, field: 'merchant_private_key', message: '商户私钥未配置或格式无效（需要 RSA 私钥）' };
  }

  let gatewayPublicKey: KeyObject;
  try {
    gatewayPublicKey = cachedKey(text(config, 'gateway_public_key'), loadPublicKey);
    if (gatewayPublicKey.asymmetricKeyType !== 'rsa') throw new Error('not rsa');
  } catch {
    return { ok: false, field: 'gateway_public_key', message: '网关公钥未配置或格式无效（需要 RSA 公钥）' };
  }

  return { ok: true, config: { appId, gatewayUrl, merchantPrivateKey, gatewayPublicKey, timeoutMs: timeout(config.timeout_ms) } };
}
