import { randomBytes } from 'node:crypto';
import { URI } from 'otpauth';
import { hashPassword } from '../../domain/auth/passwords.js';
import { issueSession } from '../../domain/auth/sessions.js';
import { confirmEnrolment, startEnrolment } from '../../domain/auth/two-factor.js';
import type { DomainDeps } from '../../domain/deps.js';

export const DEMO_TWO_FACTOR_ADMIN = 'security-admin';

/**
 * A super admin with a second factor, enrolled through the domain's own enrolment and
 * confirmation (as the routes do). Answers its password and TOTP secret when it is created, for
 * the start-up block to print once; null when it already exists (they are not kept anywhere).
 */
export async function seedTwoFactorAdmin(deps: DomainDeps): Promise<{ username: string; password: string; secret: string } | null> {
  const existing = await deps.db.models.Admin.findOne({ where: { username: DEMO_TWO_FACTOR_ADMIN } });
  if (existing) return null;
  const role = await deps.db.models.AdminRole.findOne({ where: { is_super: true } });
  if (!role) return null;
  const password = randomBytes(12).toString('base64url');
  const admin = await deps.db.models.Admin.create({
    username: DEMO_TWO_FACTOR_ADMIN,
    display_name: '两步验证演示管理员',
    password_hash: await hashPassword(password),
    role_id: role.id,
    status: 'active',
    last_login_at: null,
  });
  const meta = { ip: '', userAgent: 'dev-seeder' };
  const subject = { surface: 'admin' as const, subjectId: admin.id, account: admin.username };
  const started = await startEnrolment(deps, subject);
  const totp = URI.parse(started.otpauthUri);
  await issueSession(deps, 'admin', admin.id, meta, undefined, { scope: 'enrol' });
  const session = await deps.db.models.AuthSession.findOne({ where: { surface: 'admin', subject_id: admin.id, revoked_at: null } });
  if (!session) return null;
  await confirmEnrolment(deps, subject, session.id, totp.generate(), meta);
  // The seeder's session is not anyone's login.
  await session.update({ revoked_at: new Date() });
  return { username: admin.username, password, secret: totp.secret.base32 };
}
