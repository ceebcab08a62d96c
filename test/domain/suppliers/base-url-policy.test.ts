import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../../lib/config.js';
import { type AppError } from '../../../lib/errors.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DomainDeps } from '../../../domain/deps.js';
import { checkConsoleWebsocketUrl } from '../../../domain/services/console/vnc-ticket.js';
import { checkSupplierBaseUrl, isPublicAddress } from '../../../domain/suppliers/base-url-policy.js';
import { loadConfig } from '../../../lib/config.js';

const production = { env: 'production', allowPrivateUpstreams: false } as AppConfig;
const development = { env: 'development', allowPrivateUpstreams: false } as AppConfig;
/** A staging deployment: production with ALLOW_PRIVATE_UPSTREAMS. */
const staging = { env: 'production', allowPrivateUpstreams: true } as AppConfig;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

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

describe('ALLOW_PRIVATE_UPSTREAMS (staging): private upstream and console addresses, nothing else', () => {
  const BASE = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', TEMPORAL_ADDRESS: '127.0.0.1:7233', APP_SECRET_KEY: 'k'.repeat(40) };
  const consoleDeps = (config: AppConfig) => ({ config }) as DomainDeps;

  it('is off unless set: production without it still refuses the sandboxes\' plain-HTTP private addresses', async () => {
    const config = loadConfig(BASE);
    expect(config.allowPrivateUpstreams).toBe(false);
    expect(await refusal(checkSupplierBaseUrl(config, 'http://127.0.0.1:18105'))).toContain('HTTPS');
    expect(await refusal(checkSupplierBaseUrl(config, 'https://10.0.0.5'))).toContain('内网');
    await expect(checkConsoleWebsocketUrl(consoleDeps(config), 'ws://127.0.0.1:18107/console')).rejects.toMatchObject({ code: 50300 });
    await expect(checkConsoleWebsocketUrl(consoleDeps(config), 'wss://console.example.com/x', async () => ['192.168.1.9'])).rejects.toMatchObject({ code: 50300 });
    expect(await checkConsoleWebsocketUrl(consoleDeps(config), 'wss://console.example.com/x', async () => ['203.0.114.9'])).toBe('wss://console.example.com/x');
  });

  it('lets a production deployment reach plain-HTTP private suppliers and consoles when set', async () => {
    for (const value of ['true', '1']) expect(loadConfig({ ...BASE, ALLOW_PRIVATE_UPSTREAMS: value }).allowPrivateUpstreams).toBe(true);
    expect(() => loadConfig({ ...BASE, ALLOW_PRIVATE_UPSTREAMS: 'yes' })).toThrow(/ALLOW_PRIVATE_UPSTREAMS/);
    expect(await checkSupplierBaseUrl(staging, 'http://127.0.0.1:18105/')).toBe('http://127.0.0.1:18105');
    expect(await checkSupplierBaseUrl(staging, 'http://10.0.0.5/api')).toBe('http://10.0.0.5/api');
    expect(await checkConsoleWebsocketUrl(consoleDeps(staging), 'ws://127.0.0.1:18107/console')).toBe('ws://127.0.0.1:18107/console');
  });

  it('keeps every other address rule: credentials, schemes and queries are still refused', async () => {
    expect(await refusal(checkSupplierBaseUrl(staging, 'http://u:p@10.0.0.5'))).toContain('账号');
    expect(await refusal(checkSupplierBaseUrl(staging, 'ftp://10.0.0.5'))).toContain('https');
    expect(await refusal(checkSupplierBaseUrl(staging, 'http://10.0.0.5/?a=1'))).toContain('查询参数');
    await expect(checkConsoleWebsocketUrl(consoleDeps(staging), 'http://127.0.0.1:18107/console')).rejects.toMatchObject({ code: 50300 });
    await expect(checkConsoleWebsocketUrl(consoleDeps(staging), 'ws://u:p@127.0.0.1:18107/console')).rejects.toMatchObject({ code: 50300 });
  });

  it('changes nothing else: the configuration differs in that field only, and only the address rule reads it', () => {
    const strict = loadConfig(BASE);
    const allowing = loadConfig({ ...BASE, ALLOW_PRIVATE_UPSTREAMS: 'true' });
    expect({ ...allowing, allowPrivateUpstreams: false }).toEqual(strict);
    expect(allowing.env).toBe('production');
    const readers: string[] = [];
    for (const dir of ['api', 'activities', 'db', 'domain', 'lib', 'plugins', 'sandbox', 'scripts', 'workflows']) {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
        if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
        const path = join(entry.parentPath, entry.name);
        if (/allowPrivateUpstreams|ALLOW_PRIVATE_UPSTREAMS/.test(readFileSync(path, 'utf8'))) readers.push(relative(ROOT, path));
      }
    }
    // lib/config.ts declares it, the policy reads it, the cluster launcher sets it.
    expect(readers.sort()).toEqual(['domain/suppliers/base-url-policy.ts', 'lib/config.ts', 'scripts/lib/cluster.ts']);
  });
});
