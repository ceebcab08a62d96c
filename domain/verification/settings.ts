import type { AccessAction } from '../../lib/config.js';
import type { DomainDeps } from '../deps.js';
import { accessSettings } from '../settings/groups/access.js';
import { verificationSettings } from '../settings/groups/verification.js';
import { readSettings } from '../settings/settings.js';

export type VerificationSettings = { freeAttempts: number; fee: string; attemptSeconds: number };
export type AccessSettings = { emailRequiredFor: AccessAction[]; realNameRequiredFor: AccessAction[] };

/**
 * The settings groups this area owns, read in one place each: `verification` (free attempts,
 * the fee of each further attempt, an attempt's lifetime) and `access` (which actions need a
 * verified e-mail or a real name). Admins change them with `POST /api/v2/admin/settings`; the
 * VERIFICATION_* and ACCESS_* variables are the defaults while a key is unset.
 */
export async function readVerificationSettings(deps: DomainDeps): Promise<VerificationSettings> {
  const s = await readSettings(deps, verificationSettings);
  return { freeAttempts: s.free_attempts, fee: s.fee, attemptSeconds: s.attempt_seconds };
}

export async function readAccessSettings(deps: DomainDeps): Promise<AccessSettings> {
  const s = await readSettings(deps, accessSettings);
  return { emailRequiredFor: [...s.email_required_for], realNameRequiredFor: [...s.real_name_required_for] };
}
