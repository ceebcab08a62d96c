import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAppDeps, createAppDeps } from '../../../../api/deps.js';
import { readSettings } from '../../../../domain/settings/settings.js';
import { siteSettings } from '../../../../domain/settings/groups/site.js';
import { createLogger } from '../../../../lib/logger.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { captureLogs } from '../../../helpers/vnc.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;
let token: string;
const INVITE = 'invite-Secret-2026-xyz';
registerKnownSecret(INVITE);

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

type Item = { key: string; value: unknown; secret: boolean; has_value: boolean; masked_value: string | null; is_default: boolean };

async function items(): Promise<Map<string, Item>> {
  const res = await platform.api.get('/api/v2/admin/settings', { token });
  expect(res.body.code).toBe(0);
  return new Map((res.body.data.items as Item[]).map((i) => [i.key, i]));
}

const save = (values: Record<string, unknown>) => platform.api.post('/api/v2/admin/settings', { token, body: { values } });

describe('admin settings', () => {
  it('lists every declared key with its default until saved', async () => {
    const res = await platform.api.get('/api/v2/admin/settings', { token });
    expect(res.body.data.groups.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(['site', 'registration']));
    const all = await items();
    expect(all.get('site.name')).toMatchObject({ value: platform.deps.config.siteName, is_default: true, secret: false, has_value: false });
    expect(all.get('registration.invite_code')).toMatchObject({ value: '', secret: true, has_value: false, masked_value: null });
    const one = await platform.api.get('/api/v2/admin/settings', { token, query: { group: 'registration' } });
    expect(one.body.data.items.map((i: Item) => i.key).sort()).toEqual(['registration.enabled', 'registration.invite_code']);
  });

  it('saves, shows the value on the storefront at once, and returns a key to its default with null', async () => {
    // The storefront caches its config: the save must reach it.
    expect((await platform.api.get('/api/v2/site/config')).body.data.site_name).toBe(platform.deps.config.siteName);
    const res = await save({ 'site.name': '云栈主机', 'site.icp_record': '京ICP备12345678号' });
    expect(res.body.code).toBe(0);
    expect(res.body.message).toBe('已保存 2 项设置');
    const site = (await platform.api.get('/api/v2/site/config')).body.data;
    expect(site).toMatchObject({ site_name: '云栈主机', icp_record: '京ICP备12345678号' });
    expect((await platform.api.get('/api/v2/site/home')).body.data.site_name).toBe('云栈主机');
    expect((await items()).get('site.name')).toMatchObject({ value: '云栈主机', is_default: false });

    expect((await save({ 'site.name': '云栈主机' })).body.message).toBe('设置无变化');
    await save({ 'site.name': null });
    expect((await items()).get('site.name')).toMatchObject({ value: platform.deps.config.siteName, is_default: true });
    expect((await platform.api.get('/api/v2/site/config')).body.data.site_name).toBe(platform.deps.config.siteName);
  });

  it('refuses an unknown key or a bad value, naming it, and saves nothing of the request', async () => {
    const before = await items();
    const res = await save({ 'site.footer_text': '新的页脚', 'site.support_email': 'not-an-email', 'nope.key': 1, 'registration.enabled': 'yes' });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors).sort()).toEqual(['values.nope.key', 'values.registration.enabled', 'values.site.support_email']);
    expect((await items()).get('site.footer_text')).toEqual(before.get('site.footer_text'));
    expectError(await save({ 'Site.Name': 'x' }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/settings', { token, body: { values: 'x' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/settings', { token, query: { group: '../x' } }), 42200, 422);
  });

  it('never answers or logs a secret, keeps it on an empty submission, and masks it truly', async () => {
    const lines = captureLogs(platform);
    expect((await save({ 'registration.invite_code': INVITE })).body.code).toBe(0);
    let code = (await items()).get('registration.invite_code')!;
    expect(code).toMatchObject({ value: '', has_value: true, secret: true });
    expect(code.masked_value).not.toBe(INVITE);
    expect(code.masked_value!.length).toBeGreaterThan(0);
    // '' keeps the stored secret.
    await save({ 'registration.invite_code': '' });
    code = (await items()).get('registration.invite_code')!;
    expect(code.has_value).toBe(true);
    expectError(await save({ 'registration.invite_code': 'short' }), 42200, 422);
    // Stored sealed, not in clear.
    const [row] = await platform.deps.db.read<{ sealed_value: string; value: unknown }>("SELECT sealed_value, value FROM settings WHERE key = 'registration.invite_code'", []);
    expect(row!.value).toBeNull();
    expect(row!.sealed_value).not.toContain(INVITE);
    expect(lines.join('\n')).not.toContain(INVITE);
    // The admin audit records each save, with the secret's value removed from its request.
    const audited = await eventually(async () => {
      const rows = await platform.deps.db.read<{ request: unknown; after: unknown }>(
        "SELECT request, after FROM admin_audit_logs WHERE route = '/api/v2/admin/settings' AND request::text LIKE '%invite_code%'",
        [],
      );
      return rows.length >= 2 ? rows : null;
    });
    expect(JSON.stringify(audited)).not.toContain(INVITE);
    expect(JSON.stringify(audited)).toContain('[REDACTED]');
  });

  it('closes registration, except for the invite code', async () => {
    await save({ 'registration.enabled': false, 'registration.invite_code': INVITE });
    const body = (email: string, invite_code?: string) => ({ email, password: 'Passw0rd-long-enough', ...(invite_code ? { invite_code } : {}) });
    const closed = await platform.api.post('/api/v2/client/register', { body: body('closed@example.com') });
    expectError(closed, 40300, 403);
    expect(closed.body.message).toBe('本站暂停开放注册');
    expectError(await platform.api.post('/api/v2/client/register', { body: body('closed@example.com', 'wrong-code-123456') }), 40300, 403);
    expect((await platform.api.post('/api/v2/client/register', { body: body('invited@example.com', INVITE) })).body.code).toBe(0);
    await save({ 'registration.enabled': true });
    expect((await platform.api.post('/api/v2/client/register', { body: body('open@example.com') })).body.code).toBe(0);
  });

  it('reaches another process through the invalidation notice', async () => {
    const other = createAppDeps(platform.deps.config, createLogger('silent'));
    try {
      expect((await readSettings(other, siteSettings)).footer_text).toBe('');
      // Read until the other process holds the table in its cache (once its listener is up).
      await eventually(async () => {
        await readSettings(other, siteSettings);
        return other.settingsCache?.get();
      });
      await save({ 'site.footer_text': '© 云栈' });
      await eventually(async () => ((await readSettings(other, siteSettings)).footer_text === '© 云栈' ? true : null));
    } finally {
      await closeAppDeps(other);
    }
  });
});
