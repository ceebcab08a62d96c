import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import { adminAudit, userAudit } from '../../../domain/billing/audit.js';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { cancelInvoice } from '../../../domain/billing/invoices/cancel-invoice.js';
import { createPurchaseInvoice } from '../../../domain/billing/invoices/create-purchase-invoice.js';
import { payInvoiceByBalance } from '../../../domain/billing/payments/pay-invoice-by-balance.js';
import { adjustBalance } from '../../../domain/billing/recharge/adjust-balance.js';
import { createRefund } from '../../../domain/billing/refunds/create-refund.js';
import { commissionOf, releaseDueCommissions } from '../../../domain/marketing/commissions.js';
import { createCoupon } from '../../../domain/marketing/coupons.js';
import { ensureReferralAccount, openReferralAccountAtRegistration } from '../../../domain/marketing/referral-accounts.js';
import { approveWithdrawal, rejectWithdrawal, requestWithdrawal } from '../../../domain/marketing/withdrawals.js';
import { inTransaction, sqlOne, sqlRows } from '../../../db/sql.js';
import { createProduct } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;
let productId: number;
const admin = adminAudit({ id: 1, username: 'root' }, 'property');

beforeAll(async () => {
  platform = await startTestPlatform();
  productId = (await createProduct(platform, '60.00')).id;
});
afterAll(() => platform?.close());

type Op =
  | { kind: 'fund'; who: number; cents: number }
  | { kind: 'buy'; who: number; coupon: boolean }
  | { kind: 'pay'; who: number; pick: number }
  | { kind: 'cancel'; who: number; pick: number }
  | { kind: 'refund'; who: number; pick: number; share: number }
  | { kind: 'release' }
  | { kind: 'withdraw'; cents: number }
  | { kind: 'review'; pick: number; approve: boolean };

const who = fc.integer({ min: 0, max: 1 });
const pick = fc.nat({ max: 1000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), who, cents: fc.integer({ min: 1000, max: 30000 }) }),
  { arbitrary: fc.record({ kind: fc.constant('buy' as const), who, coupon: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('pay' as const), who, pick }), weight: 3 },
  fc.record({ kind: fc.constant('cancel' as const), who, pick }),
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), who, pick, share: fc.integer({ min: 1, max: 100 }) }), weight: 2 },
  fc.record({ kind: fc.constant('release' as const) }),
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), cents: fc.integer({ min: 500, max: 3000 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('review' as const), pick, approve: fc.boolean() }), weight: 2 },
);

function codeOf(err: unknown): number {
  if (err instanceof AppError) return err.code;
  throw err;
}

async function newUser(referrerCode: string | null): Promise<number> {
  const row = await platform.deps.db.models.User.create({ email: `mk-${randomBytes(5).toString('hex')}@example.com`, phone: null, nickname: '', password_hash: 'x', status: 'active' });
  await inTransaction(platform.deps, (tx) => openReferralAccountAtRegistration(platform.deps, row.id, referrerCode, tx));
  return row.id;
}

type World = { referrer: number; invitees: number[]; couponCode: string; invoices: number[][]; withdrawals: number[] };

async function run(o: Op, w: World): Promise<void> {
  const deps = platform.deps;
  switch (o.kind) {
    case 'fund': {
      const userId = w.invitees[o.who]!;
      await adjustBalance(deps, { userId, amount: money(o.cents).div(100), remark: '性质测试' }, admin);
      return;
    }
    case 'buy': {
      const userId = w.invitees[o.who]!;
      const made = await createPurchaseInvoice(
        deps,
        { userId, productId, billingPeriod: 'monthly', config: {}, quantity: 1, couponCode: o.coupon ? w.couponCode : null },
        userAudit(userId, 'p'),
      ).catch(codeOf);
      if (typeof made === 'number') {
        expect([40980, 42200]).toContain(made);
        return;
      }
      expect(made.invoice.amount).toBe(o.coupon ? '50.00' : '60.00');
      w.invoices[o.who]!.push(made.invoice.id);
      return;
    }
    case 'pay': {
      const userId = w.invitees[o.who]!;
      const list = w.invoices[o.who]!;
      const id = list[o.pick % Math.max(1, list.length)];
      if (id === undefined) return;
      const code = await payInvoiceByBalance(deps, { userId, invoiceId: id }, userAudit(userId, 'b')).then(() => 0, codeOf);
      expect([0, 40910, 40911, 40912]).toContain(code);
      return;
    }
    case 'cancel': {
      const userId = w.invitees[o.who]!;
      const list = w.invoices[o.who]!;
      const id = list[o.pick % Math.max(1, list.length)];
      if (id === undefined) return;
      const code = await cancelInvoice(deps, { userId, invoiceId: id }).then(() => 0, codeOf);
      expect([0, 40910, 40912]).toContain(code);
      return;
    }
    case 'refund': {
      const userId = w.invitees[o.who]!;
      const list = w.invoices[o.who]!;
      const id = list[o.pick % Math.max(1, list.length)];
      if (id === undefined) return;
      const inv = await sqlOne<{ amount: string; refunded_amount: string }>(deps, 'SELECT amount, refunded_amount FROM invoices WHERE id = $1', [id]);
      const left = money(inv!.amount).minus(inv!.refunded_amount);
      const amount = left.times(o.share).div(100).toDecimalPlaces(2);
      const code = await createRefund(deps, { userId, invoiceId: id, method: 'balance', amount: amount.gt(0) ? amount : null, reason: '', scope: ['order', 'payment'] }, admin).then(
        () => 0,
        codeOf,
      );
      expect([0, 40914, 40915]).toContain(code);
      return;
    }
    case 'release': {
      await sqlRows(deps, `UPDATE commission_entries SET available_at = now() - interval '1 second' WHERE user_id = $1 AND status = 'pending' RETURNING id`, [w.referrer]);
      await releaseDueCommissions(deps);
      return;
    }
    case 'withdraw': {
      const made = await requestWithdrawal(deps, { userId: w.referrer, amount: formatMoney(money(o.cents).div(100)), method: 'balance' }, userAudit(w.referrer, 'w')).catch(codeOf);
      if (typeof made === 'number') expect([40982, 42200]).toContain(made);
      else w.withdrawals.push(made.id);
      return;
    }
    case 'review': {
      const id = w.withdrawals[o.pick % Math.max(1, w.withdrawals.length)];
      if (id === undefined) return;
      const code = await (o.approve ? approveWithdrawal(deps, id, admin) : rejectWithdrawal(deps, id, '测试', admin)).then(() => 0, codeOf);
      expect([0, 40981]).toContain(code);
      return;
    }
  }
}

describe('marketing ledgers under random sequences', () => {
  it('purchases with coupons, refunds, commissions and withdrawals keep every ledger and the integrity check true', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 8, maxLength: 24 }), async (ops) => {
        const referrer = await newUser(null);
        const { code } = await ensureReferralAccount(platform.deps, referrer);
        const invitees = [await newUser(code), await newUser(code)];
        const couponCode = `P${randomBytes(5).toString('hex').toUpperCase()}`;
        await createCoupon(platform.deps, {
          code: couponCode,
          name: '性质测试券',
          kind: 'fixed',
          value: '10',
          min_amount: '0',
          product_ids: [],
          menu_ids: [],
          new_customers_only: false,
          scenes: ['purchase'],
          starts_at: null,
          ends_at: null,
          total_uses: 3,
          per_user_limit: 2,
          status: 'active',
          is_public: false,
          owner_user_id: null,
        });
        const world: World = { referrer, invitees, couponCode, invoices: [[], []], withdrawals: [] };
        for (const o of ops) await run(o, world);

        // The referrer's commissions are exactly the rate's share of the invitees' paid invoices, less the refunded share.
        const paid = await sqlRows<{ amount: string; refunded_amount: string }>(
          platform.deps,
          `SELECT amount, refunded_amount FROM invoices WHERE user_id = ANY($1::int[]) AND type = 'purchase' AND paid_at IS NOT NULL`,
          [invitees],
        );
        const expected = paid.reduce((sum, i) => {
          const c = commissionOf(i.amount, '5');
          const back = money(i.refunded_amount).gte(i.amount) ? c : c.times(i.refunded_amount).div(i.amount).toDecimalPlaces(2, 1);
          return sum.plus(c).minus(back);
        }, money(0));
        const booked = await sqlOne<{ total: string }>(platform.deps, 'SELECT COALESCE(sum(amount), 0) AS total FROM commission_entries WHERE user_id = $1', [referrer]);
        expect(formatMoney(booked!.total)).toBe(formatMoney(expected));
        const uses = await sqlOne<{ used: number }>(platform.deps, 'SELECT used FROM coupons WHERE code = $1', [couponCode]);
        expect(uses!.used).toBeLessThanOrEqual(3);
        expect(await checkLedgerIntegrity(platform.deps)).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });
});
