import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An entry module for fixture plugins. Actions: `health_check` and `echo` succeed, `boom`
 * throws an error carrying the secret, `slow` waits for the abort signal, `english` fails with
 * a non-Chinese message, `leak` succeeds with diagnostics holding the secret.
 */
export const FIXTURE_ENTRY = `
export async function execute(input) {
  const secret = String(input.config.api_secret ?? '');
  switch (input.action) {
    case 'health_check':
      return { success: true, action: input.action, message: '连接正常', data: { ok: true } };
    case 'echo':
      return { success: true, action: input.action, message: '完成', data: { payload: input.payload, keys: Object.keys(input.config).sort() } };
    case 'config':
      return { success: true, action: input.action, message: '完成', data: { config: input.config } };
    case 'boom':
      throw new Error('upstream refused with secret ' + secret);
    case 'slow':
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 10000);
        input.context.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); });
      });
      return { success: true, action: input.action, message: '太晚了', data: {} };
    case 'english':
      return { success: false, action: input.action, message: 'Invalid signature from gateway', data: {} };
    case 'leak':
      return { success: true, action: input.action, message: '完成', data: { note: 'token=' + secret }, diagnostics: { raw: 'secret is ' + secret } };
    default:
      return { success: false, action: input.action, message: '不支持的动作', data: {} };
  }
}

export class DailyReport {
  async handle() { return []; }
  async onTick() { return []; }
}

export function onTick() { return []; }
`;

export type FixtureManifest = { info: Record<string, unknown>; config: Record<string, unknown> };

export function fixtureManifest(domain: string, slug: string, patch: { info?: Record<string, unknown>; config?: Record<string, unknown> } = {}): FixtureManifest {
  return {
    info: { domain, slug, key: slug, name: `测试插件 ${slug}`, version: '1.0.0', entry: 'index.js', capabilities: ['test'], ...patch.info },
    config: patch.config ?? {},
  };
}

/** A temporary plugins root; `write` adds `<domain>/<slug>/manifest.json` and `index.ts`. */
export function createPluginsRoot() {
  const root = mkdtempSync(join(tmpdir(), 'plugins-root-'));
  return {
    root,
    write(domain: string, slug: string, manifest: FixtureManifest | string | null, entry: string | null = FIXTURE_ENTRY, entryFile = 'index.ts') {
      const dir = join(root, domain, slug);
      mkdirSync(dir, { recursive: true });
      if (manifest !== null) writeFileSync(join(dir, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
      if (entry !== null) writeFileSync(join(dir, entryFile), entry);
      return dir;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * An upstream plugin for products of type `other`: its manifest offers a purchase schema, a
 * console schema and a status mapping (`info.extra`), and a real provider key. Without
 * `schemas` it offers none (products bound to it are not purchasable online).
 */
export function upstreamFixtureManifest(slug: string, options: { schemas?: boolean } = {}): FixtureManifest {
  const extra: Record<string, unknown> = { provider_key: `${slug}_api` };
  if (options.schemas !== false) {
    extra.purchase_schema = {
      template: 'vps_form',
      fields: [
        { key: 'hostname', label: '主机名', type: 'text', required: true },
        { key: 'region', label: '区域', type: 'select', options: { hk: '香港', sg: '新加坡' }, rules: { nested: { deep: true } } },
      ],
    };
    extra.console_schema = { template: 'vps_console', sections: [{ key: 'overview', title: '概览' }], actions: [{ key: 'reboot', label: '重启', capability: 'power' }] };
    extra.status_mapping = { Active: '运行中', Suspended: '已暂停', Terminated: '已销毁' };
  }
  return fixtureManifest('upstream', slug, { info: { extra } });
}
