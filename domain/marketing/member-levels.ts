import { AppError, ErrorCode, conflict, notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { inTransaction, sqlOne, sqlRows, qualified, type Tx } from '../../db/sql.js';
import { advanceWatermark, databaseNow, readWatermark } from '../tasks/watermarks.js';
import { MEMBER_LEVEL_COLUMNS, type MemberLevelRecord, type MemberLevelSource } from '../../db/models/marketing.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';

export type MemberLevelInput = {
  name: string;
  discount_percent: string;
  product_ids: number[];
  menu_ids: number[];
  commission_rate: string;
  min_spend: string | null;
  sort_order: number;
};

export type MemberLevelView = MemberLevelRecord & { users: number };

const VIEW = `SELECT ${MEMBER_LEVEL_COLUMNS}, (SELECT count(*)::int FROM user_member_levels u WHERE u.level_id = member_levels.id) AS users FROM member_levels`;

/** A page of the member levels, in their sort order. */
export async function listMemberLevels(deps: DomainDeps, paging: { page: number; page_size: number }): Promise<{ rows: MemberLevelView[]; total: number }> {
  const [rows, counted] = await Promise.all([
    sqlRows<MemberLevelView>(deps, `${VIEW} ORDER BY sort_order, id LIMIT $1 OFFSET $2`, [paging.page_size, (paging.page - 1) * paging.page_size]),
    sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM member_levels', []),
  ]);
  return { rows, total: counted?.n ?? 0 };
}

export async function getMemberLevel(deps: DomainDeps, id: number): Promise<MemberLevelView> {
  const row = await sqlOne<MemberLevelView>(deps, `${VIEW} WHERE id = $1`, [id]);
  if (!row) throw notFound('会员等级不存在');
  return row;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

export async function createMemberLevel(deps: DomainDeps, input: MemberLevelInput): Promise<MemberLevelView> {
  try {
    const row = await sqlOne<{ id: number }>(
      deps,
      `INSERT INTO member_levels (name, discount_percent, product_ids, menu_ids, commission_rate, min_spend, sort_order)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [input.name, input.discount_percent, JSON.stringify(input.product_ids), JSON.stringify(input.menu_ids), input.commission_rate, input.min_spend, input.sort_order],
    );
    return getMemberLevel(deps, row!.id);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('会员等级名称已存在');
    throw error;
  }
}

export async function updateMemberLevel(deps: DomainDeps, id: number, input: MemberLevelInput): Promise<MemberLevelView> {
  try {
    const row = await sqlOne<{ id: number }>(
      deps,
      `UPDATE member_levels SET name = $2, discount_percent = $3, product_ids = $4, menu_ids = $5, commission_rate = $6, min_spend = $7, sort_order = $8,
              updated_at = now() WHERE id = $1 RETURNING id`,
      [id, input.name, input.discount_percent, JSON.stringify(input.product_ids), JSON.stringify(input.menu_ids), input.commission_rate, input.min_spend, input.sort_order],
    );
    if (!row) throw notFound('会员等级不存在');
    return getMemberLevel(deps, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('会员等级名称已存在');
    throw error;
  }
}

/** Deletes a level nobody holds (40901 otherwise: assign those users another level first). */
export async function deleteMemberLevel(deps: DomainDeps, id: number): Promise<void> {
  const row = await sqlOne<{ id: number }>(
    deps,
    'DELETE FROM member_levels WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM user_member_levels WHERE level_id = $1) RETURNING id',
    [id],
  );
  if (row) return;
  await getMemberLevel(deps, id);
  throw new AppError(ErrorCode.IN_USE, '仍有用户处于该会员等级，不能删除');
}

export type UserLevelView = { user_id: number; level: MemberLevelRecord | null; source: MemberLevelSource | null };

/**
 * An admin sets a user's level (`source: admin`: the spend task leaves it alone), or clears
 * it (`levelId` null: the user is back to the level their spend reaches, set in the same
 * transaction; the spend task reads only users whose spend changed since its last run).
 */
export async function assignMemberLevel(deps: DomainDeps, userId: number, levelId: number | null): Promise<UserLevelView> {
  const user = await sqlOne<{ id: number }>(deps, 'SELECT id FROM users WHERE id = $1', [userId]);
  if (!user) throw notFound('用户不存在');
  await inTransaction(deps, async (tx) => {
    if (levelId === null) {
      // Back to the level the user's spend reaches, at once: the spend task reads only users whose spend changed.
      await sqlOne(deps, 'DELETE FROM user_member_levels WHERE user_id = $1 RETURNING user_id', [userId], tx);
      await applySpendLevelOf(deps, userId, tx);
      return;
    }
    const level = await sqlOne<{ id: number }>(deps, 'SELECT id FROM member_levels WHERE id = $1 FOR SHARE', [levelId], tx);
    if (!level) throw notFound('会员等级不存在');
    await sqlOne(
      deps,
      `INSERT INTO user_member_levels (user_id, level_id, source) VALUES ($1, $2, 'admin')
       ON CONFLICT (user_id) DO UPDATE SET level_id = EXCLUDED.level_id, source = 'admin', updated_at = now() RETURNING user_id`,
      [userId, levelId],
      tx,
    );
  });
  return getUserLevel(deps, userId);
}

export async function getUserLevel(deps: DomainDeps, userId: number): Promise<UserLevelView> {
  const row = await sqlOne<MemberLevelRecord & { source: MemberLevelSource }>(
    deps,
    `SELECT ${qualified(MEMBER_LEVEL_COLUMNS, 'l')}, u.source FROM user_member_levels u JOIN member_levels l ON l.id = u.level_id WHERE u.user_id = $1`,
    [userId],
  );
  if (!row) return { user_id: userId, level: null, source: null };
  const { source, ...level } = row;
  return { user_id: userId, level, source };
}

/** The task's key, which also names its watermark (`task_watermarks`). */
export const SPEND_LEVELS_TASK_KEY = 'member_levels.apply_spend';

/**
 * How far back of its start a run's mark is set: a payment or refund stamped before the run
 * started but committed after the run read (a transaction still open then) is read again by the
 * next run. Payments and refunds are short transactions; an hour is far more than they take.
 */
const COMMIT_MARGIN_MS = 60 * 60 * 1000;

/**
 * The statements that set the spend levels of a set of users (`affected`, a query of `user_id`s
 * with `$1` the spend kinds and its own parameters from `$2`), or of every user (`null`): each
 * reached level is written with a guarded upsert (only a spend level that differs changes) and
 * a spend level no longer reached is deleted. Recomputed from the users' own invoices
 * (`invoices_user_idx`), never added up from deltas: a rerun, or two runs at once, set the same
 * levels and count nothing twice.
 */
function spendLevelStatements(affected: string | null) {
  const spend =
    affected === null
      ? `spend AS (
           SELECT user_id, sum(amount - refunded_amount) AS total FROM invoices
            WHERE type = ANY($1::text[]) AND paid_at IS NOT NULL GROUP BY user_id)`
      : // Per user (LATERAL): a join was planned as a hash join over every invoice once a day's payers were estimated many.
        `affected AS (${affected}), spend AS (
           SELECT a.user_id, t.total FROM affected a CROSS JOIN LATERAL (
             SELECT sum(i.amount - i.refunded_amount) AS total FROM invoices i
              WHERE i.user_id = a.user_id AND i.type = ANY($1::text[]) AND i.paid_at IS NOT NULL) t
            WHERE t.total IS NOT NULL)`;
  const head = `WITH ${spend}, reached AS (
         SELECT DISTINCT ON (s.user_id) s.user_id, l.id AS level_id FROM spend s
           JOIN member_levels l ON l.min_spend IS NOT NULL AND l.min_spend <= s.total
          ORDER BY s.user_id, l.min_spend DESC, l.id DESC
       )`;
  return {
    set: `${head}
       INSERT INTO user_member_levels (user_id, level_id, source) SELECT user_id, level_id, 'spend' FROM reached ORDER BY user_id
       ON CONFLICT (user_id) DO UPDATE SET level_id = EXCLUDED.level_id, updated_at = now()
         WHERE user_member_levels.source = 'spend' AND user_member_levels.level_id <> EXCLUDED.level_id
       RETURNING user_id`,
    dropped: `${head}
       DELETE FROM user_member_levels u WHERE u.source = 'spend'${affected === null ? '' : ' AND u.user_id IN (SELECT user_id FROM affected)'}
         AND NOT EXISTS (SELECT 1 FROM reached r WHERE r.user_id = u.user_id) RETURNING user_id`,
  };
}

const EVERY_USER = spendLevelStatements(null);

/** The users whose spend changed since `$2`: a memberSpend invoice paid (`invoices_paid_idx`) or a refund completed (`refunds_refunded_idx`). */
const CHANGED_SINCE = spendLevelStatements(`
  SELECT i.user_id FROM invoices i WHERE i.paid_at >= $2 AND i.type = ANY($1::text[])
  UNION
  SELECT i.user_id FROM refunds r JOIN invoices i ON i.id = r.invoice_id WHERE r.status = 'succeeded' AND r.refunded_at >= $2`);

const ONE_USER = spendLevelStatements('SELECT $2::int AS user_id');

/**
 * Levels reached by spend: every user not placed by an admin gets the highest level (by
 * `min_spend`) their paid spend reaches — paid invoices of the kinds with `memberSpend`
 * (`invoice-kinds.ts`), less what was refunded — or loses a spend level they no longer reach.
 *
 * A run reads only the users whose spend changed since the task's watermark (issue #35): those
 * with such an invoice paid or a refund completed since, each recomputed from their own invoices.
 * It makes a full pass over every paid invoice when there is no watermark yet or the level
 * thresholds differ from those of the last run (`levelThresholds`: a new threshold concerns every
 * user). The levels and the new watermark (the run's start less `COMMIT_MARGIN_MS`) commit
 * together; the watermark only moves forward (`advanceWatermark`), so two overlapping runs both
 * set the levels they computed (the same ones) and the later mark stays.
 */
export async function applySpendLevels(deps: DomainDeps) {
  const spendTypes = invoiceTypesWhere('memberSpend');
  return inTransaction(deps, async (tx) => {
    const startedAt = await databaseNow(deps, tx);
    const mark = await readWatermark(deps, SPEND_LEVELS_TASK_KEY, tx);
    const thresholds = await levelThresholds(deps, tx);
    const full = mark === null || mark.state['thresholds'] !== thresholds;
    const statements = full ? EVERY_USER : CHANGED_SINCE;
    const bind = full ? [spendTypes] : [spendTypes, mark.until];
    const set = await sqlRows(deps, statements.set, bind, tx);
    const dropped = await sqlRows(deps, statements.dropped, bind, tx);
    await advanceWatermark(deps, SPEND_LEVELS_TASK_KEY, new Date(startedAt.getTime() - COMMIT_MARGIN_MS), { thresholds }, tx);
    return { changed: set.length, dropped: dropped.length, pass: full ? 'full' : 'changed_since', since: full ? null : mark.until.toISOString() };
  });
}

/**
 * What the levels reached depend on, as text: each level with a threshold, `id:min_spend`. A run
 * whose text differs from the one stored with the watermark makes a full pass (a threshold was
 * set, changed or removed, a level added); a level deleted was held by nobody, names, discounts
 * and sort orders change no one's level.
 */
async function levelThresholds(deps: DomainDeps, tx: Tx): Promise<string> {
  const row = await sqlOne<{ t: string | null }>(
    deps,
    `SELECT string_agg(id || ':' || min_spend, ',' ORDER BY id) AS t FROM member_levels WHERE min_spend IS NOT NULL`,
    [],
    tx,
  );
  return row?.t ?? '';
}

/** One user's spend level, set now (an admin cleared the level they had placed). */
async function applySpendLevelOf(deps: DomainDeps, userId: number, tx: Tx): Promise<void> {
  const spendTypes = invoiceTypesWhere('memberSpend');
  await sqlRows(deps, ONE_USER.set, [spendTypes, userId], tx);
  await sqlRows(deps, ONE_USER.dropped, [spendTypes, userId], tx);
}
