import { hashPassword } from '../../domain/auth/passwords.js';
import type { DomainDeps } from '../../domain/deps.js';
import { intentKeys, recordIntent } from '../../domain/outbox/intents.js';
import { VERIFICATION_STATUS } from '../../domain/verification/attempt-record.js';
import { identityHash, maskIdNumber, maskName } from '../../domain/verification/identity.js';
import { sqlOne, sqlRows } from '../../db/sql.js';

export const DEMO_VERIFIED_CLIENT = { email: 'verified@example.com', password: 'demo-password-2026', name: '张三', idNumber: '11010519491231002X' } as const;
export const DEMO_PENDING_CLIENT = { email: 'pending@example.com', password: 'demo-password-2026', name: '李四', idNumber: '110105199001011232' } as const;

async function demoUser(deps: DomainDeps, email: string, password: string, nickname: string): Promise<{ id: number; created: boolean }> {
  const existing = await sqlOne<{ id: number }>(deps, 'SELECT id FROM users WHERE email = $1', [email]);
  if (existing) return { id: existing.id, created: false };
  const row = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO users (email, nickname, password_hash, status, email_verified_at, created_at, updated_at) VALUES ($1, $2, $3, 'active', now(), now(), now()) RETURNING id`,
    [email, nickname, await hashPassword(password)],
  );
  if (!row) throw new Error('demo user not written');
  return { id: row.id, created: true };
}

async function demoAttempt(deps: DomainDeps, userId: number, person: { name: string; idNumber: string }, status: 'passed' | 'pending', attemptNo: string) {
  return sqlOne<{ id: string; attempt_no: string; expires_at: Date }>(
    deps,
    `INSERT INTO verification_attempts (attempt_no, user_id, status, kind, name_sealed, id_number_sealed, id_hash, name_mask, id_mask, charge, fee, expires_at,
        finished_at, result_source, provider_reached)
     VALUES ($1, $2, $3, 'face', $4, $5, $6, $7, $8, 'free', 0, now() + interval '1 day',
        CASE WHEN $3::varchar = 'passed' THEN now() END, CASE WHEN $3::varchar = 'passed' THEN 'query' END, $3::varchar = 'passed')
     RETURNING id, attempt_no, expires_at`,
    [attemptNo, userId, status, deps.secretBox.seal(person.name), deps.secretBox.seal(person.idNumber), identityHash(deps, person.idNumber), maskName(person.name), maskIdNumber(person.idNumber)],
  );
}

/**
 * Real-name verification demo data (docs/identity.md): `verified@example.com` verified (a passed
 * attempt, the masks on the user, a history row) and `pending@example.com` with a pending attempt
 * whose workflow the outbox relay starts once the worker runs (its QR code opens the sandbox
 * provider's session). Checked before written: a second start changes nothing.
 */
export async function seedIdentityDemo(deps: DomainDeps): Promise<string[]> {
  const created: string[] = [];
  const verified = await demoUser(deps, DEMO_VERIFIED_CLIENT.email, DEMO_VERIFIED_CLIENT.password, '已实名演示用户');
  if (verified.created) {
    const attempt = await demoAttempt(deps, verified.id, DEMO_VERIFIED_CLIENT, 'passed', 'VADEMO00000001');
    if (!attempt) throw new Error('demo attempt not written');
    await sqlRows(
      deps,
      `UPDATE users SET is_verified = 1, verification_status = $2, verification_id_hash = $3, verification_name_mask = $4, verification_id_mask = $5,
          verification_attempt_id = $6, verified_at = now(), verification_updated_at = now() WHERE id = $1 RETURNING id`,
      [verified.id, VERIFICATION_STATUS.verified, identityHash(deps, DEMO_VERIFIED_CLIENT.idNumber), maskName(DEMO_VERIFIED_CLIENT.name), maskIdNumber(DEMO_VERIFIED_CLIENT.idNumber), attempt.id],
    );
    await sqlRows(
      deps,
      `INSERT INTO verification_history (user_id, attempt_id, event, status_after, name_mask, id_mask, reason, source) VALUES ($1, $2, 'passed', 2, $3, $4, '演示数据', 'query') RETURNING id`,
      [verified.id, attempt.id, maskName(DEMO_VERIFIED_CLIENT.name), maskIdNumber(DEMO_VERIFIED_CLIENT.idNumber)],
    );
    created.push(`user:${DEMO_VERIFIED_CLIENT.email} (verified)`);
  }
  const pending = await demoUser(deps, DEMO_PENDING_CLIENT.email, DEMO_PENDING_CLIENT.password, '认证中演示用户');
  if (pending.created) {
    const attemptNo = `VADEMO${String(pending.id).padStart(8, '0')}`;
    const attempt = await demoAttempt(deps, pending.id, DEMO_PENDING_CLIENT, 'pending', attemptNo);
    if (!attempt) throw new Error('demo attempt not written');
    await sqlRows(deps, 'UPDATE users SET verification_status = $2, verification_updated_at = now() WHERE id = $1 RETURNING id', [pending.id, VERIFICATION_STATUS.pending]);
    await recordIntent(deps, { kind: 'start_verification', key: intentKeys.verificationStart(attemptNo), payload: { attempt_no: attemptNo }, delayMs: 0 });
    created.push(`user:${DEMO_PENDING_CLIENT.email} (verification pending)`);
  }
  return created;
}
