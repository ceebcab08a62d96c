import { AppError, ErrorCode, conflict, notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { inTransaction, sqlOne, sqlRows, qualified } from '../../db/sql.js';
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
 * it (`levelId` null: the user is back to the level their spend reaches, at the task's next run).
 */
export async function assignMemberLevel(deps: DomainDeps, userId: number, levelId: number | null): Promise<UserLevelView> {
  const user = await sqlOne<{ id: number }>(deps, 'SELECT id FROM users WHERE id = $1', [userId]);
  if (!user) throw notFound('用户不存在');
  await inTransaction(deps, async (tx) => {
    if (levelId === null) {
      await sqlOne(deps, 'DELETE FROM user_member_levels WHERE user_id = $1 RETURNING user_id', [userId], tx);
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

/**
 * Levels reached by spend: every user not placed by an admin gets the highest level (by
 * `min_spend`) their paid spend reaches — paid invoices of the kinds with `memberSpend`
 * (`invoice-kinds.ts`), less what was refunded — or loses a spend level they no longer reach.
 * Two set statements, idempotent: a rerun changes nothing.
 */
export async function applySpendLevels(deps: DomainDeps) {
  const spendTypes = invoiceTypesWhere('memberSpend');
  return inTransaction(deps, async (tx) => {
    const spend = `WITH spend AS (
         SELECT user_id, sum(amount - refunded_amount) AS total FROM invoices
          WHERE type = ANY($1::text[]) AND paid_at IS NOT NULL GROUP BY user_id
       ), reached AS (
         SELECT DISTINCT ON (s.user_id) s.user_id, l.id AS level_id FROM spend s
           JOIN member_levels l ON l.min_spend IS NOT NULL AND l.min_spend <= s.total
          ORDER BY s.user_id, l.min_spend DESC, l.id DESC
       )`;
    const set = await sqlRows(
      deps,
      `${spend}
       INSERT INTO user_member_levels (user_id, level_id, source) SELECT user_id, level_id, 'spend' FROM reached
       ON CONFLICT (user_id) DO UPDATE SET level_id = EXCLUDED.level_id, updated_at = now()
         WHERE user_member_levels.source = 'spend' AND user_member_levels.level_id <> EXCLUDED.level_id
       RETURNING user_id`,
      [spendTypes],
      tx,
    );
    const dropped = await sqlRows(
      deps,
      `${spend}
       DELETE FROM user_member_levels u WHERE u.source = 'spend' AND NOT EXISTS (SELECT 1 FROM reached r WHERE r.user_id = u.user_id) RETURNING user_id`,
      [spendTypes],
      tx,
    );
    return { changed: set.length, dropped: dropped.length };
  });
}
