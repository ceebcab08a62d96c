import type { AccessAction } from '../../lib/config.js';
import type { DomainDeps } from '../deps.js';

export type VerificationSettings = { freeAttempts: number; fee: string; attemptSeconds: number };
export type AccessSettings = { emailRequiredFor: AccessAction[]; realNameRequiredFor: AccessAction[] };

/**
 * The settings groups this area owns, read in one place each: `verification` (free attempts,
 * the fee of each further attempt, an attempt's lifetime) and `access` (which actions need a
 * verified e-mail or a real name). They come from the environment until the settings kernel's
 * `readSettings(deps, verificationSettings)` replaces these two bodies.
 */
export async function readVerificationSettings(deps: DomainDeps): Promise<VerificationSettings> {
  const { freeAttempts, fee, attemptSeconds } = deps.config.verification;
  return Promise.resolve({ freeAttempts, fee, attemptSeconds });
}

export async function readAccessSettings(deps: DomainDeps): Promise<AccessSettings> {
  return Promise.resolve({ emailRequiredFor: [...deps.config.access.emailRequiredFor], realNameRequiredFor: [...deps.config.access.realNameRequiredFor] });
}
