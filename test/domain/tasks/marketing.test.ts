import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { applySpendLevels, assignMemberLevel, createMemberLevel, SPEND_LEVELS_TASK_KEY, updateMemberLevel, type MemberLevelInput } from '../../../domain/marketing/member-levels.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { expectIndexedOnly } from '../../helpers/query-plans.js';

/**
 * `member_levels.apply_spend` at the size of a reseller's third year: 1,000 users with 100,000
 * paid invoices. After its first (full) pass a run reads only the users who paid or were refunded
 * since its watermark, through indexes, and every run leaves each user at the level a full
 * recomputation gives, also when two runs overlap.
 */

let platform: TestPlatform;
let users: number[];
const levels: Record<string, number> = {};

const level = (name: string, minSpend: string): MemberLevelInput => ({
  name,
  discount_percent: '0',
  product_ids: [],
  menu_ids: [],
  commission_rate: '0',
  min_spend: minSpend,
  sort_order: 0,
});

/** The spend levels a full recomputation over every paid invoice gives (users placed by an admin left out), as `user:level`. */
async function recomputed(): Promise<string[]> {
  const rows = await sqlRows<{ user_id: number; level_id: number }>(
    platform.deps,
    `SELECT s.user_id, (SELECT l.id FROM member_levels l WHERE l.min_spend IS NOT NULL AND l.min_spend <= s.total ORDER BY l.min_spend DESC, l.id DESC LIMIT 1) AS level_id
       FROM (SELECT user_id, sum(amount - refunded_amount) AS total FROM invoices
              WHERE type IN ('purchase', 'renew', 'traffic_package', 'upgrade') AND paid_at IS NOT NULL GROUP BY user_id) s
      WHERE NOT EXISTS (SELECT 1 FROM user_member_levels u WHERE u.user_id = s.user_id AND u.source = 'admin')`,
    [],
  );
  return rows.filter((r) => r.level_id !== null).map((r) => `${r.user_id}:${r.level_id}`).sort();
}

async function spendLevels(): Promise<string[]> {
  const rows = await sqlRows<{ user_id: number; level_id: number }>(platform.deps, `SELECT user_id, level_id FROM user_member_levels WHERE source = 'spend'`, []);
  return rows.map((r) => `${r.user_id}:${r.level_id}`).sort();
}

async function pay(userId: number, amount: string): Promise<number> {
  const row = await sqlOne<{ id: number }>(
    platform.deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at) VALUES ($1, 'purchase', 'paid', '新付', $2, $2, 'balance', now()) RETURNING id`,
    [userId, amount],
  );
  return row!.id;
}

/** A completed balance refund of part of a paid invoice (the red entry, the invoice's refunded amount, the refund row), as the refund path leaves them. */
async function refund(invoiceId: number, amount: string): Promise<void> {
  await sqlOne(
    platform.deps,
    `WITH original AS (
       UPDATE invoices SET refunded_amount = refunded_amount + $2::numeric, status = 'partially_refunded', updated_at = now() WHERE id = $1 RETURNING id, user_id
     ), red AS (
       INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, origin_invoice_id, payment_channel, paid_at)
       SELECT user_id, 'refund', 'paid', '退款', -$2::numeric, -$2::numeric, id, 'balance', now() FROM original RETURNING id, user_id, origin_invoice_id
     )
     INSERT INTO refunds (user_id, invoice_id, amount, balance_part, third_party_part, refund_method, status, operator_type, refunded_at, refund_invoice_id)
     SELECT user_id, origin_invoice_id, $2::numeric, $2::numeric, 0, 'balance', 'succeeded', 'system', now(), id FROM red RETURNING id`,
    [invoiceId, amount],
  );
}

beforeAll(async () => {
  platform = await startTestPlatform();
  const deps = platform.deps;
  users = (
    await sqlRows<{ id: number }>(deps, `INSERT INTO users (email, password_hash) SELECT 'spender-' || g || '@example.com', 'x' FROM generate_series(1, 1000) g RETURNING id`, [])
  )
    .map((r) => r.id)
    .sort((a, b) => a - b);
  // 100 paid invoices each: user k spends 10, 20, 30, 40 or 50 per invoice (1,000 to 5,000 in all).
  await sqlRows(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, created_at)
     SELECT u.ids[1 + g % 1000], 'purchase', 'paid', '历史账单', 10 * (1 + g % 5), 10 * (1 + g % 5), 'balance',
            now() - (1 + g % 900) * interval '1 day', now() - (1 + g % 900) * interval '1 day'
       FROM generate_series(0, 99999) g, (SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE email LIKE 'spender-%') u`,
    [],
  );
  await sqlRows(deps, 'ANALYZE invoices', []);
  levels['铜'] = (await createMemberLevel(deps, level('铜', '2000.00'))).id;
  levels['银'] = (await createMemberLevel(deps, level('银', '3500.00'))).id;
  levels['金'] = (await createMemberLevel(deps, level('金', '5000.00'))).id;
});
afterAll(() => platform?.close());

const total = async (userId: number) => (await sqlOne<{ t: string }>(platform.deps, `SELECT sum(amount - refunded_amount)::text AS t FROM invoices WHERE user_id = $1 AND paid_at IS NOT NULL AND type <> 'refund'`, [userId]))!.t;

describe('member_levels.apply_spend over 100,000 paid invoices', () => {
  it('the first run makes a full pass; later runs read only the users who paid or were refunded since, through indexes, and agree with a full recomputation', async () => {
    const first = await applySpendLevels(platform.deps);
    expect(first).toMatchObject({ pass: 'full' });
    expect(await spendLevels()).toEqual(await recomputed());
    expect((await spendLevels()).length).toBe(800);

    // A 3,000 spender pays 600 (reaches 银), a 5,000 spender is refunded 20 (back to 银), a new user pays 2,500 (reaches 铜).
    const refunded = users[4]!;
    expect([await total(users[2]!), await total(refunded)]).toEqual(['3000.00', '5000.00']);
    await pay(users[2]!, '600.00');
    const refundedInvoice = (await sqlOne<{ id: number }>(platform.deps, `SELECT id FROM invoices WHERE user_id = $1 ORDER BY id LIMIT 1`, [refunded]))!.id;
    await refund(refundedInvoice, '20.00');
    const newcomer = (await sqlOne<{ id: number }>(platform.deps, `INSERT INTO users (email, password_hash) VALUES ('newcomer@example.com', 'x') RETURNING id`, []))!.id;
    await pay(newcomer, '2500.00');

    const second = await expectIndexedOnly(platform.deps, ['invoices'], () => applySpendLevels(platform.deps));
    expect(second.result).toMatchObject({ pass: 'changed_since', changed: 3, dropped: 0 });
    const now = await spendLevels();
    expect(now).toEqual(await recomputed());
    expect(now).toContain(`${users[2]}:${levels['银']}`);
    expect(now).toContain(`${refunded}:${levels['银']}`);
    expect(now).toContain(`${newcomer}:${levels['铜']}`);

    // Nothing changed since: nothing to do, and still through indexes.
    const third = await expectIndexedOnly(platform.deps, ['invoices'], () => applySpendLevels(platform.deps));
    expect(third.result).toMatchObject({ pass: 'changed_since', changed: 0, dropped: 0 });
  });

  it('two overlapping runs set the levels a full recomputation gives, counting nothing twice; the watermark only moves forward', async () => {
    // Five 1,000 spenders pay 1,000 each (reach 铜); one of them pays 1,500 more (reaches 银).
    const payers = [users[0]!, users[5]!, users[10]!, users[15]!, users[20]!];
    for (const u of payers) await pay(u, '1000.00');
    await pay(users[0]!, '1500.00');
    const before = (await sqlOne<{ until: Date }>(platform.deps, 'SELECT until FROM task_watermarks WHERE task_key = $1', [SPEND_LEVELS_TASK_KEY]))!.until;
    const runs = await Promise.all([applySpendLevels(platform.deps), applySpendLevels(platform.deps)]);
    expect(runs.map((r) => r.pass)).toEqual(['changed_since', 'changed_since']);
    // Each user's level was written once between the two runs (the guarded upsert of the second finds it set).
    expect(runs[0]!.changed + runs[1]!.changed).toBe(payers.length);
    const now = await spendLevels();
    expect(now).toEqual(await recomputed());
    expect(now).toContain(`${users[0]}:${levels['银']}`);
    expect(now).toContain(`${users[5]}:${levels['铜']}`);
    const after = (await sqlOne<{ until: Date }>(platform.deps, 'SELECT until FROM task_watermarks WHERE task_key = $1', [SPEND_LEVELS_TASK_KEY]))!.until;
    expect(after.getTime()).toBeGreaterThan(before.getTime());
    expect((await applySpendLevels(platform.deps)).changed).toBe(0);
  });

  it('a level changed since the last run makes the next run a full pass; an admin clearing a level gives the spend level at once', async () => {
    await updateMemberLevel(platform.deps, levels['金']!, level('金', '4000.00'));
    const run = await applySpendLevels(platform.deps);
    expect(run).toMatchObject({ pass: 'full' });
    expect(await spendLevels()).toEqual(await recomputed());
    expect(await spendLevels()).toContain(`${users[4]}:${levels['金']}`);

    const placed = users[1]!;
    await assignMemberLevel(platform.deps, placed, levels['金']!);
    expect(await spendLevels()).not.toContain(`${placed}:${levels['铜']}`);
    const cleared = await assignMemberLevel(platform.deps, placed, null);
    expect(cleared).toMatchObject({ source: 'spend', level: { id: levels['铜'] } });
    expect(await spendLevels()).toEqual(await recomputed());
  });
});
