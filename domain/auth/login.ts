import { Op } from 'sequelize';
import { AppError, ErrorCode, unauthenticated } from '../../lib/errors.js';
import type { AdminRow } from '../../db/models/admin.js';
import type { UserRow } from '../../db/models/user.js';
import type { DomainDeps } from '../deps.js';
import { beginLoginAttempt, settleLoginAttempt } from './login-throttle.js';
import { hashPassword, isLegacyHash, verifyDecoy, verifyPassword } from './passwords.js';
import { type IssuedToken, issueSession, type RequestMeta } from './sessions.js';
import { createLoginChallenge, hasSecondFactor, twoFactorRequiredFor } from './two-factor.js';

const BAD_CREDENTIALS = '账号或密码错误';
const DISABLED = '账号已被禁用';

type Account = { id: number; password_hash: string; status: string; last_login_at: Date | null; save(): Promise<unknown> };

/**
 * What a right password gets: a session (`enrolmentRequired`: an admin the settings require to
 * have a second factor, who has none, gets an enrol-only session), or, where a second factor is
 * on, a challenge for the code step (`completeTwoFactorLogin`).
 */
export type LoginResult<T> =
  | { row: T; token: IssuedToken; enrolmentRequired: boolean; challenge?: undefined }
  | { row: T; challenge: { challengeToken: string; expiresIn: number }; token?: undefined };

/**
 * Shared steps of both login forms: open the attempt's log row and throttle (before anything is
 * looked up or verified), verify, log the outcome, upgrade a legacy hash, then open a session or,
 * where a second factor is on, answer a challenge instead.
 */
async function authenticate<T extends Account>(
  deps: DomainDeps,
  surface: 'admin' | 'client',
  account: string,
  password: string,
  meta: RequestMeta,
  find: () => Promise<T | null>,
  mustEnrol: (row: T) => Promise<boolean> = async () => false,
): Promise<LoginResult<T>> {
  const attempt = await beginLoginAttempt(deps, surface, account, meta);
  const row = await find();
  if (!row) {
    await verifyDecoy(password);
    await settleLoginAttempt(deps, attempt, { subjectId: null, success: false, reason: 'unknown_account' });
    throw unauthenticated(BAD_CREDENTIALS);
  }
  if (!(await verifyPassword(row.password_hash, password))) {
    await settleLoginAttempt(deps, attempt, { subjectId: row.id, success: false, reason: 'bad_password' });
    throw unauthenticated(BAD_CREDENTIALS);
  }
  if (row.status !== 'active') {
    await settleLoginAttempt(deps, attempt, { subjectId: row.id, success: false, reason: 'disabled' });
    throw new AppError(ErrorCode.FORBIDDEN, DISABLED);
  }
  row.last_login_at = new Date();
  if (isLegacyHash(row.password_hash)) row.password_hash = await hashPassword(password);
  await row.save();
  if (await hasSecondFactor(deps, surface, row.id)) {
    // The password was right, not yet the login: the code step writes the success row.
    await settleLoginAttempt(deps, attempt, { subjectId: row.id, success: false, reason: 'two_factor_challenge' });
    return { row, challenge: await createLoginChallenge(deps, { surface, subjectId: row.id, account: attempt.account }) };
  }
  const enrolmentRequired = await mustEnrol(row);
  await settleLoginAttempt(deps, attempt, { subjectId: row.id, success: true, reason: enrolmentRequired ? 'two_factor_enrolment_required' : '' });
  const token = await issueSession(deps, surface, row.id, meta, undefined, { scope: enrolmentRequired ? 'enrol' : 'full' });
  return { row, token, enrolmentRequired };
}

export async function loginAdmin(deps: DomainDeps, input: { username: string; password: string }, meta: RequestMeta) {
  const username = input.username.trim();
  return authenticate<AdminRow>(
    deps,
    'admin',
    username,
    input.password,
    meta,
    () => deps.db.models.Admin.findOne({ where: { username }, include: [{ association: 'role' }] }),
    async (admin) => twoFactorRequiredFor(deps, { roleCode: admin.role?.code ?? '' }),
  );
}

export function normaliseAccount(account: string): string {
  const trimmed = account.trim();
  return trimmed.includes('@') ? trimmed.toLowerCase() : trimmed;
}

/** Client login by e-mail or phone number. */
export async function loginClient(deps: DomainDeps, input: { account: string; password: string }, meta: RequestMeta) {
  const account = normaliseAccount(input.account);
  return authenticate<UserRow>(deps, 'client', account, input.password, meta, () =>
    deps.db.models.User.findOne({ where: { [Op.or]: [{ email: account }, { phone: account }] } }),
  );
}
