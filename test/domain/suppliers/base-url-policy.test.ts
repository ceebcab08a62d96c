import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../../lib/config.js';
import { type AppError } from '../../../lib/errors.js';
import { checkSupplierBaseUrl, isPublicAddress } from '../../../domain/suppliers/base-url-policy.js';

const production = { env: 'production' } as AppConfig;
const development = { env: 'development' } as AppConfig;

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (err) {
    expect((err as AppError).code).toBe(42200);
    return ((err as AppError).data as { errors: { base_url: string[] } }).errors.base_url[0] ?? '';
  }
  throw new Error('expected a refusal');
}

describe('supplier base URL policy', () => {
  it('allows plain http and loopback outside production', async () => {
    expect(await checkSupplierBaseUrl(development, 'http://127.0.0.1:18105/')).toBe('http://127.0.0.1:18105');
  });

  it('refuses plain http in production', async () => {
    expect(await refusal(checkSupplierBaseUrl(production, 'http://api.example.com'))).toContain('HTTPS');
  });

  it('refuses addresses that resolve to private, loopback or link-local ranges in production', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fd00::1', '100.64.0.1']) {
      expect(await refusal(checkSupplierBaseUrl(production, 'https://api.example.com', async () => [address]))).toContain('内网');
    }
    expect(await refusal(checkSupplierBaseUrl(production, 'https://[::1]/'))).toContain('内网');
    expect(await refusal(checkSupplierBaseUrl(production, 'https://api.example.com', async () => ['203.0.114.9', '10.0.0.1']))).toContain('内网');
    expect(await checkSupplierBaseUrl(production, 'https://api.example.com/v1/', async () => ['203.0.114.9'])).toBe('https://api.example.com/v1');
  });

  it('refuses credentials in the URL and non-http schemes', async () => {
    expect(await refusal(checkSupplierBaseUrl(development, 'https://u:p@api.example.com'))).toContain('账号');
    expect(await refusal(checkSupplierBaseUrl(development, 'ftp://api.example.com'))).toContain('https');
  });

  it('classifies addresses', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('192.168.0.1')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});
