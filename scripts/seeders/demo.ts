import { hashPassword } from '../../domain/auth/passwords.js';
import type { DomainDeps } from '../../domain/deps.js';
import { saveSettings } from '../../domain/settings/settings.js';

export const DEMO_CLIENT = { email: 'demo@example.com', password: 'demo-password-2026' } as const;

/** Demo data for `npm run dev`; every step checks before it writes, so a second start changes nothing. */
export async function seedDemoData(deps: DomainDeps): Promise<{ created: string[] }> {
  const created: string[] = [];
  const { AdminRole, User } = deps.db.models;
  const [, opsCreated] = await AdminRole.findOrCreate({
    where: { code: 'operations' },
    defaults: {
      code: 'operations',
      name: '运营',
      permissions: ['user.view', 'invoice.view', 'log.view', 'schedule.view', 'setting.view'],
      is_super: false,
    },
  });
  if (opsCreated) created.push('role:operations');
  const existing = await User.findOne({ where: { email: DEMO_CLIENT.email } });
  if (!existing) {
    await User.create({
      email: DEMO_CLIENT.email,
      phone: null,
      nickname: '演示用户',
      password_hash: await hashPassword(DEMO_CLIENT.password),
      status: 'active',
      email_verified_at: new Date(),
    });
    created.push(`user:${DEMO_CLIENT.email}`);
  }
  // Demo settings, only where an admin has not saved one: the storefront config shows them.
  const demoSettings = { 'site.support_email': 'support@example.com', 'site.support_phone': '400-000-0000', 'site.icp_record': '京ICP备00000000号（演示）' };
  const stored = await deps.db.read<{ key: string }>('SELECT key FROM settings WHERE key = ANY($1)', [Object.keys(demoSettings)]);
  const unset = Object.fromEntries(Object.entries(demoSettings).filter(([key]) => !stored.some((r) => r.key === key)));
  if (Object.keys(unset).length > 0) {
    await saveSettings(deps, null, unset);
    created.push('settings:site');
  }
  return { created };
}
