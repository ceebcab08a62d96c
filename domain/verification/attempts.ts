import { Decimal } from 'decimal.js';
import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import { formatMoney } from '../../lib/money.js';
import { inTransaction, sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import { BACKGROUND_DEADLINE_MS, REQUEST_DEADLINE_MS } from '../../lib/temporal.js';
import type { DomainDeps } from '../deps.js';
import { userAudit } from '../billing/audit.js';
import { insertInvoice } from '../billing/invoices/insert-invoice.js';
import { intentKeys, markIntentDone, recordIntent, TRY_NOW_GRACE_MS } from '../outbox/intents.js';
import { ATTEMPT_COLUMNS, type AttemptKind, type AttemptRecord, VERIFICATION_STATUS } from './attempt-record.js';
import { identityHash, maskIdNumber, maskName, normaliseIdNumber, normaliseName } from './identity.js';
import { callVerificationPlugin } from './provider.js';
import { readVerificationSettings } from './settings.js';
import { startVerificationWorkflow } from './workflow-start.js';

export type FeeConfig = {
  free_attempts: number;
  used_free_attempts: number;
  remaining_free_attempts: number;
  fee: string;
  next_attempt_fee: string;
  attempt_seconds: number;
};

/** Free attempts per user, then the fee per attempt (settings group `verification`); a restart costs nothing. */
export async function getFeeConfig(deps: DomainDeps, userId: number, tx?: Tx): Promise<FeeConfig> {
  const settings = await readVerificationSettings(deps);
  const used = await sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n FROM verification_attempts WHERE user_id = $1 AND charge = 'free'`, [userId], tx);
  const usedFree = used?.n ?? 0;
  const remaining = Math.max(0, settings.freeAttempts - usedFree);
  const fee = formatMoney(settings.fee);
  return {
    free_attempts: settings.freeAttempts,
    used_free_attempts: usedFree,
    remaining_free_attempts: remaining,
    fee,
    next_attempt_fee: remaining > 0 || new Decimal(fee).lte(0) ? '0.00' : fee,
    attempt_seconds: settings.attemptSeconds,
  };
}

export async function findAttemptByNo(deps: DomainDeps, attemptNo: string, tx?: Tx): Promise<AttemptRecord | null> {
  return sqlOne<AttemptRecord>(deps, `SELECT ${ATTEMPT_COLUMNS} FROM verification_attempts WHERE attempt_no = $1`, [attemptNo], tx);
}

/** The user's latest attempt (any state), or null. */
export async function latestAttempt(deps: DomainDeps, userId: number, tx?: Tx): Promise<AttemptRecord | null> {
  return sqlOne<AttemptRecord>(deps, `SELECT ${ATTEMPT_COLUMNS} FROM verification_attempts WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, [userId], tx);
}

type UserState = { id: number; is_verified: number; verification_status: number | null };

async function lockUser(deps: DomainDeps, userId: number, tx: Tx): Promise<UserState> {
  const user = await sqlOne<UserState>(deps, 'SELECT id, is_verified, verification_status FROM users WHERE id = $1 FOR UPDATE', [userId], tx);
  if (!user) throw notFound('用户不存在');
  return user;
}

/** The user's open attempt (awaiting payment or pending), after closing one whose invoice was cancelled meanwhile. */
async function openAttempt(deps: DomainDeps, userId: number, tx: Tx): Promise<AttemptRecord | null> {
  await sqlRows(
    deps,
    `UPDATE verification_attempts a SET status = 'cancelled', finished_at = now(), result_source = 'restart', reason_code = 'invoice_cancelled',
        reason_message = '认证费账单已取消', updated_at = now()
       FROM invoices i
      WHERE a.user_id = $1 AND a.status = 'awaiting_payment' AND i.id = a.invoice_id AND i.status = 'cancelled' RETURNING a.id`,
    [userId],
    tx,
  );
  return sqlOne<AttemptRecord>(
    deps,
    `SELECT ${ATTEMPT_COLUMNS} FROM verification_attempts WHERE user_id = $1 AND status IN ('awaiting_payment', 'pending') ORDER BY id DESC LIMIT 1`,
    [userId],
    tx,
  );
}

async function identityTakenByAnother(deps: DomainDeps, userId: number, idHash: string, tx?: Tx): Promise<boolean> {
  const row = await sqlOne<{ id: number }>(deps, 'SELECT id FROM users WHERE verification_id_hash = $1 AND id <> $2', [idHash, userId], tx);
  return row !== null;
}

export const IDENTITY_IN_USE_MESSAGE = '该身份信息已完成过实名认证，不能用于其他账号';

export type InitInput = { name: string; id_number: string; kind: AttemptKind };

export type InitOutcome = { attempt: AttemptRecord; invoice: { id: number; invoice_no: string; amount: string } | null };

async function newAttemptNo(deps: DomainDeps, tx: Tx): Promise<string> {
  const row = await sqlOne<{ no: string }>(deps, `SELECT 'VA' || to_char(now(), 'YYYYMMDD') || lpad(nextval('verification_attempt_no_seq')::text, 8, '0') AS no`, [], tx);
  if (!row) throw new Error('no attempt number');
  return row.no;
}

/**
 * Starts an attempt for the caller: name and ID number checked (GB 11643 check digit), sealed
 * with the secret box, masked and hashed. Refused when already verified (40970), when an attempt
 * is open (40971, or 40974 with its unpaid invoice), or when the identity verifies another account
 * (40972; no account named). A free attempt (free attempts left, or no fee) is `pending` at once:
 * its workflow is promised by an outbox row in the same transaction, and the provider session is
 * opened now so the answer carries `certify_id` (if the provider is down, the workflow opens it
 * later and the attempt stays usable). A paid one waits for its own `verification` invoice
 * (balance or QR through the invoice routes); its fulfilment activates it exactly once.
 */
export async function initVerification(deps: DomainDeps, userId: number, input: InitInput, traceId: string): Promise<InitOutcome> {
  const idNumber = normaliseIdNumber(input.id_number);
  const name = normaliseName(input.name);
  const errors: Record<string, string[]> = {};
  if (!name) errors.name = ['请填写与身份证一致的真实姓名（2 到 32 个字）'];
  if (!idNumber) errors.id_number = ['身份证号格式不正确'];
  if (!name || !idNumber) throw validationError(errors);
  const idHash = identityHash(deps, idNumber);
  const outcome = await inTransaction(deps, async (tx) => {
    const user = await lockUser(deps, userId, tx);
    if (user.is_verified === 1) throw new AppError(ErrorCode.VERIFICATION_ALREADY_VERIFIED, '您已完成实名认证');
    const open = await openAttempt(deps, userId, tx);
    if (open?.status === 'awaiting_payment') {
      throw new AppError(ErrorCode.VERIFICATION_AWAITING_PAYMENT, '您有待支付的实名认证账单，请先支付或取消该账单', { attempt_no: open.attempt_no, invoice_id: Number(open.invoice_id) });
    }
    if (open) throw new AppError(ErrorCode.VERIFICATION_IN_PROGRESS, '您有进行中的实名认证，请完成或重新发起', { attempt_no: open.attempt_no });
    if (await identityTakenByAnother(deps, userId, idHash, tx)) throw new AppError(ErrorCode.VERIFICATION_IDENTITY_IN_USE, IDENTITY_IN_USE_MESSAGE);
    const fees = await getFeeConfig(deps, userId, tx);
    const paid = new Decimal(fees.next_attempt_fee).gt(0);
    const attemptNo = await newAttemptNo(deps, tx);
    let invoice: InitOutcome['invoice'] = null;
    if (paid) {
      const inserted = await insertInvoice(
        deps,
        {
          userId,
          type: 'verification',
          status: 'unpaid',
          subject: '实名认证费',
          amount: fees.next_attempt_fee,
          payload: { attempt_no: attemptNo },
          items: [{ key: 'verification', description: `实名认证（${attemptNo}）`, unitAmount: fees.next_attempt_fee, quantity: 1, amount: fees.next_attempt_fee }],
          audit: userAudit(userId, traceId),
        },
        tx,
      );
      invoice = { id: inserted.invoice.id, invoice_no: inserted.invoice.invoice_no, amount: inserted.invoice.amount };
    }
    const attempt = await sqlOne<AttemptRecord>(
      deps,
      `INSERT INTO verification_attempts (attempt_no, user_id, status, kind, name_sealed, id_number_sealed, id_hash, name_mask, id_mask, charge, fee, invoice_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, CASE WHEN $3::varchar = 'pending' THEN now() + make_interval(secs => $13) END)
       RETURNING ${ATTEMPT_COLUMNS}`,
      [
        attemptNo,
        userId,
        paid ? 'awaiting_payment' : 'pending',
        input.kind,
        deps.secretBox.seal(name),
        deps.secretBox.seal(idNumber),
        idHash,
        maskName(name),
        maskIdNumber(idNumber),
        paid ? 'paid' : 'free',
        paid ? fees.next_attempt_fee : '0.00',
        invoice?.id ?? null,
        fees.attempt_seconds,
      ],
      tx,
    );
    if (!attempt) throw new Error('attempt not written');
    if (!paid) await beginPending(deps, attempt, tx);
    return { attempt, invoice };
  });
  if (outcome.attempt.status !== 'pending') return outcome;
  return { attempt: await followUpPending(deps, outcome.attempt, REQUEST_DEADLINE_MS), invoice: null };
}

/** In the transaction that made an attempt pending: the user shows "pending" (unless verified) and the workflow is promised. */
async function beginPending(deps: DomainDeps, attempt: AttemptRecord, tx: Tx): Promise<void> {
  await sqlRows(
    deps,
    `UPDATE users SET verification_status = $2, verification_updated_at = now(), updated_at = now() WHERE id = $1 AND is_verified = 0 RETURNING id`,
    [attempt.user_id, VERIFICATION_STATUS.pending],
    tx,
  );
  await recordIntent(deps, { kind: 'start_verification', key: intentKeys.verificationStart(attempt.attempt_no), payload: { attempt_no: attempt.attempt_no }, delayMs: TRY_NOW_GRACE_MS }, tx);
}

/**
 * After the commit: open the provider session (so an answer can carry `certify_id`) and start
 * the workflow. Both are repeated by the workflow and the outbox relay if they fail here.
 */
async function followUpPending(deps: DomainDeps, attempt: AttemptRecord, deadlineMs: number): Promise<AttemptRecord> {
  let current = attempt;
  try {
    current = await ensureProviderSession(deps, attempt);
  } catch (err) {
    deps.logger.warn({ err: err instanceof AppError ? err.message : err, attemptNo: attempt.attempt_no }, 'verification session not opened now; the workflow retries');
  }
  try {
    await startVerificationWorkflow(deps, current, deadlineMs);
    await markIntentDone(deps, intentKeys.verificationStart(current.attempt_no));
  } catch (err) {
    deps.logger.warn({ err, attemptNo: attempt.attempt_no }, 'verification workflow not started now; the outbox relay starts it');
  }
  return current;
}

/**
 * Opens the provider session of a pending attempt once: `verification.init` with the attempt
 * number as the provider's idempotency key (a repeat answers the same `certify_id`), stored by a
 * guarded update. The sealed values are opened only for this call and go nowhere else.
 */
export async function ensureProviderSession(deps: DomainDeps, attempt: AttemptRecord): Promise<AttemptRecord> {
  if (attempt.certify_id !== null || attempt.status !== 'pending') return attempt;
  const sealed = await sqlOne<{ name_sealed: string; id_number_sealed: string }>(deps, 'SELECT name_sealed, id_number_sealed FROM verification_attempts WHERE id = $1', [attempt.id]);
  if (!sealed) throw new Error('attempt vanished');
  const name = deps.secretBox.open(sealed.name_sealed);
  const idNumber = deps.secretBox.open(sealed.id_number_sealed);
  const result = await callVerificationPlugin(
    deps,
    'verification.init',
    { outer_order_no: attempt.attempt_no, kind: attempt.kind, name, id_number: idNumber },
    attempt.attempt_no,
    [name, idNumber],
  );
  const certifyId = result.data.certify_id;
  if (!result.success || typeof certifyId !== 'string' || certifyId === '' || certifyId.length > 128) {
    throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务暂时不可用，请稍后重试');
  }
  const updated = await sqlOne<AttemptRecord>(
    deps,
    `UPDATE verification_attempts SET certify_id = $2, provider_reached = true, updated_at = now() WHERE id = $1 AND certify_id IS NULL RETURNING ${ATTEMPT_COLUMNS}`,
    [attempt.id, certifyId],
  );
  return updated ?? (await findAttemptByNo(deps, attempt.attempt_no)) ?? attempt;
}

/**
 * Fulfilment of a paid `verification` invoice (from `dispatchFulfilment`): its attempt goes from
 * `awaiting_payment` to `pending` once (a guarded update; a repeat finds nothing to do), its
 * lifetime starting now, with the workflow promised in the same transaction.
 */
export async function activatePaidAttempt(deps: DomainDeps, invoiceId: number): Promise<void> {
  const settings = await readVerificationSettings(deps);
  const activated = await inTransaction(deps, async (tx) => {
    const attempt = await sqlOne<AttemptRecord>(
      deps,
      `UPDATE verification_attempts SET status = 'pending', expires_at = now() + make_interval(secs => $2), updated_at = now()
        WHERE invoice_id = $1 AND status = 'awaiting_payment' RETURNING ${ATTEMPT_COLUMNS}`,
      [invoiceId, settings.attemptSeconds],
      tx,
    );
    if (attempt) await beginPending(deps, attempt, tx);
    return attempt;
  });
  if (activated) await followUpPending(deps, activated, BACKGROUND_DEADLINE_MS);
}

/** Free restarts of one attempt (each opens a provider session, which the platform pays for). */
export const MAX_RESTARTS = 5;

/**
 * A new provider session for the caller's latest attempt when it is still pending or expired
 * (the person did not finish, the link timed out, the provider was down before the scan): the
 * old one is closed (`cancelled`) and a new attempt with the same sealed identity starts, free of
 * charge (`restart`; a paid attempt is never charged again). A failed or passed attempt cannot
 * be restarted: a new `init` is a new attempt. 40973 otherwise, and after MAX_RESTARTS restarts.
 */
export async function restartVerification(deps: DomainDeps, userId: number): Promise<AttemptRecord> {
  const settings = await readVerificationSettings(deps);
  const fresh = await inTransaction(deps, async (tx) => {
    const user = await lockUser(deps, userId, tx);
    if (user.is_verified === 1) throw new AppError(ErrorCode.VERIFICATION_ALREADY_VERIFIED, '您已完成实名认证');
    const latest = await latestAttempt(deps, userId, tx);
    if (!latest || (latest.status !== 'pending' && latest.status !== 'expired')) {
      throw new AppError(ErrorCode.VERIFICATION_NOT_RESTARTABLE, '没有可重新发起的实名认证，请重新提交认证信息');
    }
    if (await identityTakenByAnother(deps, userId, latest.id_hash, tx)) throw new AppError(ErrorCode.VERIFICATION_IDENTITY_IN_USE, IDENTITY_IN_USE_MESSAGE);
    const restarts = await sqlOne<{ n: number }>(
      deps,
      `SELECT count(*)::int AS n FROM verification_attempts
        WHERE user_id = $1 AND charge = 'restart' AND id > COALESCE((SELECT max(id) FROM verification_attempts WHERE user_id = $1 AND charge <> 'restart'), 0)`,
      [userId],
      tx,
    );
    if ((restarts?.n ?? 0) >= MAX_RESTARTS) {
      throw new AppError(ErrorCode.VERIFICATION_NOT_RESTARTABLE, `同一次认证最多重新发起 ${MAX_RESTARTS} 次，请重新提交认证信息`);
    }
    if (latest.status === 'pending') {
      const closed = await sqlOne(
        deps,
        `UPDATE verification_attempts SET status = 'cancelled', finished_at = now(), result_source = 'restart', updated_at = now()
          WHERE id = $1 AND status = 'pending' RETURNING id`,
        [latest.id],
        tx,
      );
      if (!closed) throw new AppError(ErrorCode.CONFLICT, '认证状态已变化，请刷新后重试');
    }
    const attemptNo = await newAttemptNo(deps, tx);
    const attempt = await sqlOne<AttemptRecord>(
      deps,
      `INSERT INTO verification_attempts (attempt_no, user_id, status, kind, name_sealed, id_number_sealed, id_hash, name_mask, id_mask, charge, fee, restart_of, expires_at)
       SELECT $1, user_id, 'pending', kind, name_sealed, id_number_sealed, id_hash, name_mask, id_mask, 'restart', 0, id, now() + make_interval(secs => $3)
         FROM verification_attempts WHERE id = $2
       ON CONFLICT (restart_of) DO NOTHING
       RETURNING ${ATTEMPT_COLUMNS}`,
      [attemptNo, latest.id, settings.attemptSeconds],
      tx,
    );
    if (!attempt) throw new AppError(ErrorCode.CONFLICT, '该认证已重新发起，请刷新后重试');
    await beginPending(deps, attempt, tx);
    return attempt;
  });
  return followUpPending(deps, fresh, REQUEST_DEADLINE_MS);
}
