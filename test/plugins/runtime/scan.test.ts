import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pluginsRoot } from '../../../plugins/runtime/plugins-root.js';
import { scanPlugins } from '../../../plugins/runtime/scan.js';
import { createPluginsRoot, fixtureManifest } from '../../helpers/plugin-fixtures.js';

const fixtures = createPluginsRoot();
afterAll(() => fixtures.cleanup());

describe('scan', () => {
  it('lists the folders of the seven domains, hides demo_ plugins and skips runtime', async () => {
    fixtures.write('payment', 'qr_test', fixtureManifest('payment', 'qr_test'));
    fixtures.write('payment', 'demo_pay', fixtureManifest('payment', 'demo_pay'));
    fixtures.write('sms', 'broken', '{');
    fixtures.write('mail', 'renamed', fixtureManifest('mail', 'other'));
    mkdirSync(join(fixtures.root, 'runtime', 'x'), { recursive: true });
    mkdirSync(join(fixtures.root, 'unknown_domain', 'y'), { recursive: true });
    const found = await scanPlugins(fixtures.root);
    expect(found.map((f) => `${f.domain}/${f.slug}`)).toEqual(['payment/qr_test', 'mail/renamed', 'sms/broken']);
    expect(found.find((f) => f.slug === 'qr_test')).toMatchObject({ error: null, manifest: { info: { key: 'qr_test' } } });
    expect(found.find((f) => f.slug === 'broken')?.error).toMatch(/不是有效的 JSON/);
    expect(found.find((f) => f.slug === 'renamed')?.error).toMatch(/与目录名（renamed）不一致/);
  });

  it('defaults to the plugins folder next to the runtime', () => {
    expect(pluginsRoot({})).toMatch(/[/\\]plugins$/);
    expect(pluginsRoot({ pluginsDir: fixtures.root })).toBe(fixtures.root);
  });
});
