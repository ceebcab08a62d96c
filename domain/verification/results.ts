import { inTransaction, sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { VerificationCheck, VerificationState } from '../../workflows/verification/contract.js';
import { ATTEMPT_COLUMNS, type AttemptRecord, VERIFICATION_STATUS } from './attempt-record.js';
import { ensureProviderSession, findAttemptByNo, IDENTITY_IN_USE_MESSAGE } from './attempts.js';
import { type ProviderResult, queryProvider } from './provider.js';

type Source = 'callback' | 'query' | 'expiry';
type Final = { outcome: 'passed' | 'failed' | 'expired'; reasonCode: string | null; reasonMessage: string | null };

function stateOf(attempt: AttemptRecord): VerificationState {
  return attempt.status === 'awaiting_payment' ? 'pending' : attempt.status;
}

/**
 * Applies a final result to the one attempt it belongs to and to that attempt's user, once: the
 * attempt leaves `pending` by a guarded update (a repeated or late result finds nothing and
 * changes nothing), and in the same transaction the user's fields and a history row. A pass whose
 * identity meanwhile verified another account ends `failed` (`identity_in_use`, naming nobody):
 * one identity, one account (the UNIQUE index on `users.verification_id_hash` holds it).
 */
export async function applyResult(deps: DomainDeps, attemptId: string, final: Final, source: Source): Promise<boolean> {
  return inTransaction(deps, async (tx) => {
    const attempt = await sqlOne<AttemptRecord>(deps, `SELECT ${ATTEMPT_COLUMNS} FROM verification_attempts WHERE id = $1 FOR UPDATE`, [attemptId], tx);
    if (!attempt || attempt.status !== 'pending') return false;
    let result = final;
    if (result.outcome === 'passed') {
      const taken = await sqlOne(deps, 'SELECT id FROM users WHERE verification_id_hash = $1 AND id <> $2', [attempt.id_hash, attempt.user_id], tx);
      if (taken) result = { outcome: 'failed', reasonCode: 'identity_in_use', reasonMessage: IDENTITY_IN_USE_MESSAGE };
    }
    const closed = await sqlOne(
      deps,
      `UPDATE verification_attempts SET status = $2, finished_at = now(), result_source = $3, reason_code = $4, reason_message = $5, updated_at = now()
        WHERE id = $1 AND status = 'pending' RETURNING id`,
      [attempt.id, result.outcome, source, result.reasonCode, result.reasonMessage],
      tx,
    );
    if (!closed) return false;
    if (result.outcome === 'passed') {
      await sqlRows(
        deps,
        `UPDATE users SET is_verified = 1, verification_status = $2, verification_id_hash = $3, verification_name_mask = $4, verification_id_mask = $5,
            verification_attempt_id = $6, verified_at = now(), verification_updated_at = now(), updated_at = now()
          WHERE id = $1 RETURNING id`,
        [attempt.user_id, VERIFICATION_STATUS.verified, attempt.id_hash, attempt.name_mask, attempt.id_mask, attempt.id],
        tx,
      );
    } else {
      await sqlRows(
        deps,
        `UPDATE users SET verification_status = $2, verification_updated_at = now(), updated_at = now() WHERE id = $1 AND is_verified = 0 RETURNING id`,
        [attempt.user_id, VERIFICATION_STATUS.failed],
        tx,
      );
    }
    await sqlRows(
      deps,
      `INSERT INTO verification_history (user_id, attempt_id, event, status_after, name_mask, id_mask, reason, source, trace_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (attempt_id, event) DO NOTHING RETURNING id`,
      [
        attempt.user_id,
        attempt.id,
        result.outcome,
        result.outcome === 'passed' ? VERIFICATION_STATUS.verified : VERIFICATION_STATUS.failed,
        attempt.name_mask,
        attempt.id_mask,
        result.reasonMessage ?? '',
        source,
        attempt.attempt_no,
      ],
      tx,
    );
    return true;
  });
}

function finalOf(result: ProviderResult): Final | null {
  if (result.status === 2) return { outcome: 'passed', reasonCode: null, reasonMessage: null };
  if (result.status === 3) return { outcome: 'failed', reasonCode: result.reasonCode ?? 'other', reasonMessage: result.reasonMessage ?? '认证未通过' };
  return null;
}

/**
 * One look (the workflow's `checkVerification`): an attempt no longer pending answers its state;
 * otherwise the provider session is opened if it is not yet, the provider is asked, and a final
 * answer is applied. The provider being away throws (the workflow looks again later).
 */
export async function checkAttempt(deps: DomainDeps, attemptNo: string, source: Source = 'query'): Promise<VerificationCheck> {
  let attempt = await findAttemptByNo(deps, attemptNo);
  if (!attempt) throw new Error(`verification attempt ${attemptNo} not found`);
  if (attempt.status !== 'pending') return { state: stateOf(attempt) };
  attempt = await ensureProviderSession(deps, attempt);
  if (attempt.certify_id === null) return { state: stateOf(attempt) };
  const result = await queryProvider(deps, attempt.certify_id);
  if (result === null) throw new Error('verification provider did not answer the query');
  const final = finalOf(result);
  if (final) await applyResult(deps, attempt.id, final, source);
  const after = await findAttemptByNo(deps, attemptNo);
  return { state: after ? stateOf(after) : 'pending' };
}

/**
 * The end of an attempt's lifetime (`expireVerification`): one last look at the provider (a
 * result that arrived just in time still counts), then whatever is still pending expires.
 */
export async function expireAttempt(deps: DomainDeps, attemptNo: string): Promise<VerificationCheck> {
  try {
    const check = await checkAttempt(deps, attemptNo, 'query');
    if (check.state !== 'pending') return check;
  } catch (err) {
    deps.logger.info({ err, attemptNo }, 'last look at the provider failed; the attempt expires');
  }
  const attempt = await findAttemptByNo(deps, attemptNo);
  if (!attempt) throw new Error(`verification attempt ${attemptNo} not found`);
  if (attempt.status === 'pending') await applyResult(deps, attempt.id, { outcome: 'expired', reasonCode: 'expired', reasonMessage: '认证已超时' }, 'expiry');
  const after = await findAttemptByNo(deps, attemptNo);
  return { state: after ? stateOf(after) : 'expired' };
}
