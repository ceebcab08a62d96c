import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import type { Audit } from '../billing/audit.js';
import { postAccountTransaction } from '../billing/ledger/post-account-transaction.js';
import type { DomainDeps } from '../deps.js';
import { inTransaction, sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import { WITHDRAWAL_COLUMNS, type WithdrawalMethod, type WithdrawalRecord, type WithdrawalStatus } from '../../db/models/marketing.js';
import { ensureReferralAccount } from './referral-accounts.js';
import { readReferralConfig } from './referral-config.js';

export const WITHDRAWAL_STATUS_LABELS: Record<WithdrawalStatus, string> = {
  pending: '待审核',
  approved: '已通过待打款',
  paid: '已打款',
  rejected: '已驳回',
};

export type WithdrawalRequest = {
  userId: number;
  amount: string;
  method: WithdrawalMethod;
  accountName?: string | undefined;
  accountNo?: string | undefined;
};

/**
 * The user asks to withdraw commission: to their cash balance, or to an external account
 * (name and number; an admin pays it by hand and marks it paid). Limits (42200 on `amount`):
 * the minimum and maximum per request and the daily total (requests of the day, Asia/Shanghai,
 * not rejected). Under the referral account's row lock, the amount is reserved by one guarded
 * UPDATE (`available_amount >= amount`): nothing is ever withdrawn twice or beyond what is
 * available (40982).
 */
export async function requestWithdrawal(deps: DomainDeps, input: WithdrawalRequest, audit: Audit): Promise<WithdrawalRecord> {
  const config = await readReferralConfig(deps);
  const amount = money(input.amount);
  if (amount.lt(config.withdrawalMin)) throw validationError({ amount: [`单次提现金额不能低于 ${config.withdrawalMin} 元`] });
  if (amount.gt(config.withdrawalMax)) throw validationError({ amount: [`单次提现金额不能超过 ${config.withdrawalMax} 元`] });
  const accountNo = (input.accountNo ?? '').trim();
  const accountName = (input.accountName ?? '').trim();
  if (input.method === 'external' && (!accountNo || !accountName)) {
    throw validationError({ ...(accountNo ? {} : { account_no: ['提现到外部账户时请填写收款账号'] }), ...(accountName ? {} : { account_name: ['请填写收款人姓名'] }) });
  }
  await ensureReferralAccount(deps, input.userId);
  return inTransaction(deps, async (tx) => {
    await sqlOne(deps, 'SELECT user_id FROM referral_accounts WHERE user_id = $1 FOR UPDATE', [input.userId], tx);
    const today = await sqlOne<{ total: string }>(
      deps,
      `SELECT COALESCE(sum(amount), 0) AS total FROM referral_withdrawals
        WHERE user_id = $1 AND status <> 'rejected' AND created_at >= (date_trunc('day', now() AT TIME ZONE 'Asia/Shanghai') AT TIME ZONE 'Asia/Shanghai')`,
      [input.userId],
      tx,
    );
    const left = money(config.withdrawalDailyLimit).minus(today?.total ?? 0);
    if (amount.gt(left)) throw validationError({ amount: [`超过每日提现限额 ${config.withdrawalDailyLimit} 元（今日还可提现 ${formatMoney(left.lt(0) ? 0 : left)} 元）`] });
    const reserved = await sqlOne<{ user_id: number }>(
      deps,
      `UPDATE referral_accounts SET available_amount = available_amount - $2, frozen_amount = frozen_amount + $2, updated_at = now()
        WHERE user_id = $1 AND available_amount >= $2 RETURNING user_id`,
      [input.userId, formatMoney(amount)],
      tx,
    );
    if (!reserved) throw new AppError(ErrorCode.COMMISSION_INSUFFICIENT, '可提现佣金不足');
    const row = await sqlOne<WithdrawalRecord>(
      deps,
      `INSERT INTO referral_withdrawals (user_id, amount, method, account_name, account_no, status, trace_id)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING ${WITHDRAWAL_COLUMNS}`,
      [input.userId, formatMoney(amount), input.method, accountName.slice(0, 64), input.method === 'external' ? accountNo.slice(0, 64) : '', audit.traceId],
      tx,
    );
    if (!row) throw new Error('withdrawal not written');
    return row;
  });
}

async function refuseTransition(deps: DomainDeps, id: number, tx: Tx, action: string): Promise<never> {
  const current = await sqlOne<{ status: WithdrawalStatus; method: WithdrawalMethod }>(deps, 'SELECT status, method FROM referral_withdrawals WHERE id = $1', [id], tx);
  if (!current) throw notFound('提现申请不存在');
  throw new AppError(ErrorCode.WITHDRAWAL_STATE_CONFLICT, `提现申请${WITHDRAWAL_STATUS_LABELS[current.status]}，不能${action}`, { status: current.status, method: current.method });
}

/** Frozen → withdrawn on the referral account (guarded: never below zero). */
async function moveFrozenToWithdrawn(deps: DomainDeps, w: WithdrawalRecord, tx: Tx): Promise<void> {
  const moved = await sqlOne(
    deps,
    `UPDATE referral_accounts SET frozen_amount = frozen_amount - $2, withdrawn_amount = withdrawn_amount + $2, updated_at = now()
      WHERE user_id = $1 AND frozen_amount >= $2 RETURNING user_id`,
    [w.user_id, w.amount],
    tx,
  );
  if (!moved) throw new Error(`withdrawal ${w.withdrawal_no}: frozen amount missing`);
}

/**
 * Admin approval, one guarded statement (`WHERE status = 'pending'`): of any number of racing
 * approvals exactly one changes the row, the others answer 40981. A withdrawal to the balance
 * is paid at once in the same transaction (a `commission_withdrawal` account transaction keyed
 * `withdrawal:<no>`, UNIQUE); an external one waits for `markWithdrawalPaid`.
 */
export async function approveWithdrawal(deps: DomainDeps, id: number, audit: Audit): Promise<WithdrawalRecord> {
  return inTransaction(deps, async (tx) => {
    const w = await sqlOne<WithdrawalRecord>(
      deps,
      `UPDATE referral_withdrawals
          SET status = CASE WHEN method = 'balance' THEN 'paid' ELSE 'approved' END,
              paid_at = CASE WHEN method = 'balance' THEN now() END,
              reviewed_by = $2, reviewed_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'pending' RETURNING ${WITHDRAWAL_COLUMNS}`,
      [id, audit.operator.id],
      tx,
    );
    if (!w) return refuseTransition(deps, id, tx, '审核通过');
    if (w.status !== 'paid') return w;
    await moveFrozenToWithdrawn(deps, w, tx);
    const posted = await postAccountTransaction(
      deps,
      {
        userId: w.user_id,
        type: 'commission_withdrawal',
        amount: money(w.amount),
        idempotencyKey: `withdrawal:${w.withdrawal_no}`,
        remark: `佣金提现到余额：${w.withdrawal_no}`,
        audit,
      },
      tx,
    );
    const done = await sqlOne<WithdrawalRecord>(
      deps,
      `UPDATE referral_withdrawals SET account_transaction_id = $2 WHERE id = $1 RETURNING ${WITHDRAWAL_COLUMNS}`,
      [w.id, posted.id],
      tx,
    );
    if (!done) throw new Error('withdrawal vanished');
    return done;
  });
}

/** An approved external withdrawal was paid out by hand (`WHERE status = 'approved'`: once). */
export async function markWithdrawalPaid(deps: DomainDeps, id: number, audit: Audit): Promise<WithdrawalRecord> {
  return inTransaction(deps, async (tx) => {
    const w = await sqlOne<WithdrawalRecord>(
      deps,
      `UPDATE referral_withdrawals SET status = 'paid', paid_at = now(), reviewed_by = COALESCE(reviewed_by, $2), updated_at = now()
        WHERE id = $1 AND status = 'approved' AND method = 'external' RETURNING ${WITHDRAWAL_COLUMNS}`,
      [id, audit.operator.id],
      tx,
    );
    if (!w) return refuseTransition(deps, id, tx, '标记为已打款');
    await moveFrozenToWithdrawn(deps, w, tx);
    return w;
  });
}

/** Rejects a pending or approved (not yet paid) withdrawal with a reason; the amount goes back to available, once. */
export async function rejectWithdrawal(deps: DomainDeps, id: number, reason: string, audit: Audit): Promise<WithdrawalRecord> {
  return inTransaction(deps, async (tx) => {
    const w = await sqlOne<WithdrawalRecord>(
      deps,
      `UPDATE referral_withdrawals SET status = 'rejected', reject_reason = $3, reviewed_by = $2, reviewed_at = now(), updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'approved') RETURNING ${WITHDRAWAL_COLUMNS}`,
      [id, audit.operator.id, reason.slice(0, 255)],
      tx,
    );
    if (!w) return refuseTransition(deps, id, tx, '驳回');
    const back = await sqlOne(
      deps,
      `UPDATE referral_accounts SET frozen_amount = frozen_amount - $2, available_amount = available_amount + $2, updated_at = now()
        WHERE user_id = $1 AND frozen_amount >= $2 RETURNING user_id`,
      [w.user_id, w.amount],
      tx,
    );
    if (!back) throw new Error(`withdrawal ${w.withdrawal_no}: frozen amount missing`);
    return w;
  });
}

export type WithdrawalFilter = { userId?: number | undefined; status?: WithdrawalStatus | undefined; method?: WithdrawalMethod | undefined; page: number; page_size: number };

const WITHDRAWAL_WHERE = `($1::int IS NULL OR user_id = $1) AND ($2::varchar IS NULL OR status = $2) AND ($3::varchar IS NULL OR method = $3)`;

/** A page of withdrawals (newest first) with the count of the whole filter; its amounts per status are `summarizeWithdrawals`. */
export async function listWithdrawals(deps: DomainDeps, filter: WithdrawalFilter) {
  const params = [filter.userId ?? null, filter.status ?? null, filter.method ?? null];
  const where = WITHDRAWAL_WHERE;
  const [rows, counted] = await Promise.all([
    sqlRows<WithdrawalRecord>(deps, `SELECT ${WITHDRAWAL_COLUMNS} FROM referral_withdrawals WHERE ${where} ORDER BY id DESC LIMIT $4 OFFSET $5`, [
      ...params,
      filter.page_size,
      (filter.page - 1) * filter.page_size,
    ]),
    sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n FROM referral_withdrawals WHERE ${where}`, params),
  ]);
  return { rows, total: counted?.n ?? 0 };
}

/** The count and the amount per status of the withdrawals a filter selects (every status present, zero when none). */
export async function summarizeWithdrawals(deps: DomainDeps, filter: Omit<WithdrawalFilter, 'page' | 'page_size'>) {
  const totals = await sqlRows<{ status: WithdrawalStatus; n: number; amount: string }>(
    deps,
    `SELECT status, count(*)::int AS n, sum(amount) AS amount FROM referral_withdrawals WHERE ${WITHDRAWAL_WHERE} GROUP BY status`,
    [filter.userId ?? null, filter.status ?? null, filter.method ?? null],
  );
  const byStatus = Object.fromEntries(
    (['pending', 'approved', 'paid', 'rejected'] as const).map((s) => {
      const t = totals.find((x) => x.status === s);
      return [s, { count: t?.n ?? 0, amount: formatMoney(t?.amount ?? 0) }];
    }),
  ) as Record<WithdrawalStatus, { count: number; amount: string }>;
  return { count: totals.reduce((n, t) => n + t.n, 0), totals: byStatus };
}

export async function getWithdrawal(deps: DomainDeps, id: number, userId?: number): Promise<WithdrawalRecord> {
  const row = await sqlOne<WithdrawalRecord>(deps, `SELECT ${WITHDRAWAL_COLUMNS} FROM referral_withdrawals WHERE id = $1 AND ($2::int IS NULL OR user_id = $2)`, [id, userId ?? null]);
  if (!row) throw notFound('提现申请不存在');
  return row;
}
