import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import { adminAudit, userAudit } from '../../../domain/billing/audit.js';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { createPurchaseInvoice } from '../../../domain/billing/invoices/create-purchase-invoice.js';
import { payInvoiceByBalance } from '../../../domain/billing/payments/pay-invoice-by-balance.js';
import { startQrPayment } from '../../../domain/billing/payments/start-qr-payment.js';
import { adjustBalance } from '../../../domain/billing/recharge/adjust-balance.js';
import { createRefund } from '../../../domain/billing/refunds/create-refund.js';
import { executeOriginalRefund } from '../../../domain/billing/refunds/execute-original-refund.js';
import { buyerPays, createProduct, startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { eventually } from '../../helpers/wait.js';

let platform: BillingPlatform;
let productId: number;
const admin = adminAudit({ id: 1, username: 'root' }, 'property');

beforeAll(async () => {
  // Polling stays out of the way: payments settle through the gateway's notifications.
  platform = await startBillingPlatform({ QRPAY_POLL_INTERVALS_SECONDS: '3600' });
  productId = (await createProduct(platform, '12.34')).id;
});
afterAll(() => platform?.close());

type Op =
  | { kind: 'adjust'; user: number; cents: number }
  | { kind: 'purchase'; user: number; quantity: number }
  | { kind: 'payBalance'; user: number; pick: number }
  | { kind: 'payQr'; user: number; pick: number; useBalance: boolean }
  | { kind: 'refund'; user: number; pick: number; share: number; method: 'balance' | 'original' };

const user = fc.integer({ min: 0, max: 1 });
const pick = fc.nat({ max: 1000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('adjust' as const), user, cents: fc.integer({ min: -3000, max: 8000 }).filter((c) => c !== 0) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('purchase' as const), user, quantity: fc.integer({ min: 1, max: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('payBalance' as const), user, pick }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('payQr' as const), user, pick, useBalance: fc.boolean() }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      user,
      pick,
      share: fc.oneof(fc.constant(100), fc.integer({ min: 1, max: 100 })),
      method: fc.constantFrom('balance' as const, 'original' as const),
    }),
    weight: 3,
  },
);

/** `refunded`/`refundedThird` count reserved (processing) refunds too; `succeeded` only finished ones. */
type ModelInvoice = { id: number; amount: Decimal; status: 'unpaid' | 'paid'; thirdParty: Decimal; refunded: Decimal; refundedThird: Decimal; succeeded: Decimal };
type ModelUser = { id: number; balance: Decimal; invoices: ModelInvoice[] };

async function newUser(): Promise<ModelUser> {
  const row = await platform.deps.db.models.User.create({ email: `prop-${randomBytes(5).toString('hex')}@example.com`, phone: null, nickname: '', password_hash: 'x', status: 'active' });
  return { id: row.id, balance: money(0), invoices: [] };
}

function codeOf(err: unknown): number {
  if (err instanceof AppError) return err.code;
  throw err;
}

/** Runs one operation against the real domain functions and the model; answers what the model expected to happen. */
async function run(o: Op, u: ModelUser): Promise<void> {
  const deps = platform.deps;
  switch (o.kind) {
    case 'adjust': {
      const amount = money(o.cents).div(100);
      await adjustBalance(deps, { userId: u.id, amount, remark: '性质测试' }, admin);
      u.balance = u.balance.plus(amount);
      return;
    }
    case 'purchase': {
      const { invoice } = await createPurchaseInvoice(deps, { userId: u.id, productId, billingPeriod: 'monthly', config: {}, quantity: o.quantity }, userAudit(u.id, 'p'));
      expect(invoice.amount).toBe(formatMoney(money('12.34').times(o.quantity)));
      u.invoices.push({ id: invoice.id, amount: money(invoice.amount), status: 'unpaid', thirdParty: money(0), refunded: money(0), refundedThird: money(0), succeeded: money(0) });
      return;
    }
    case 'payBalance': {
      const inv = u.invoices[o.pick % Math.max(1, u.invoices.length)];
      if (!inv) return;
      const expected = inv.status === 'paid' ? 40910 : u.balance.lt(inv.amount) ? 40911 : 0;
      const code = await payInvoiceByBalance(deps, { userId: u.id, invoiceId: inv.id }, userAudit(u.id, 'b')).then(() => 0, codeOf);
      expect(code).toBe(expected);
      if (code === 0) {
        u.balance = u.balance.minus(inv.amount);
        inv.status = 'paid';
      }
      return;
    }
    case 'payQr': {
      const inv = u.invoices[o.pick % Math.max(1, u.invoices.length)];
      if (!inv) return;
      const covered = o.useBalance && u.balance.gte(inv.amount);
      const expected = inv.status === 'paid' ? 40910 : covered ? 42200 : 0;
      const started = await startQrPayment(deps, { userId: u.id, invoiceId: inv.id, useBalance: o.useBalance }, userAudit(u.id, 'q')).catch(codeOf);
      if (typeof started === 'number') {
        expect(started).toBe(expected);
        return;
      }
      expect(expected).toBe(0);
      const balancePart = o.useBalance && u.balance.gt(0) ? u.balance : money(0);
      expect(started.payment.balance_part).toBe(formatMoney(balancePart));
      // The buyer pays at the sandbox gateway; its signed notification settles through our notify route.
      await buyerPays(started.payment.qr_code_url);
      await eventually(async () => ((await deps.db.models.Payment.findOne({ where: { payment_no: started.payment.payment_no, status: 'paid' } })) ? true : null));
      u.balance = u.balance.minus(balancePart);
      inv.status = 'paid';
      inv.thirdParty = inv.amount.minus(balancePart);
      return;
    }
    case 'refund': {
      const inv = u.invoices[o.pick % Math.max(1, u.invoices.length)];
      if (!inv) return;
      const remaining = inv.amount.minus(inv.refunded);
      const amount = money(remaining.times(o.share).div(100).toFixed(2, 1));
      const tp = Decimal.min(amount, inv.thirdParty.minus(inv.refundedThird));
      // The request is checked first (an amount must be positive), then the invoice.
      let expected = 0;
      if (amount.lte(0)) expected = 42200;
      else if (inv.status !== 'paid' || inv.succeeded.eq(inv.amount)) expected = 40915;
      else if (remaining.lte(0)) expected = 40914;
      else if (o.method === 'original' && tp.lte(0)) expected = 40917;
      const done = await createRefund(deps, { userId: u.id, invoiceId: inv.id, method: o.method, amount, reason: '', scope: ['order', 'payment'] }, admin).catch(codeOf);
      if (typeof done === 'number') {
        expect(done).toBe(expected);
        return;
      }
      expect(expected).toBe(0);
      expect(done.refund.third_party_part).toBe(formatMoney(tp));
      inv.refunded = inv.refunded.plus(amount);
      inv.refundedThird = inv.refundedThird.plus(tp);
      if (o.method === 'balance') {
        u.balance = u.balance.plus(amount);
        inv.succeeded = inv.succeeded.plus(amount);
      } else {
        expect(done.refund.status).toBe('processing');
        // The refund workflow's activity, run directly: the sandbox gateway refunds the third-party part.
        expect(await executeOriginalRefund(deps, done.refund.refund_no, admin)).toBe('succeeded');
        u.balance = u.balance.plus(done.refund.balance_part);
        inv.succeeded = inv.succeeded.plus(amount);
      }
      return;
    }
  }
}

describe('money invariants under random sequences', () => {
  it('hold after any sequence of recharge, deduction, purchase, balance and QR payment and refund', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 24 }), async (ops) => {
        const users = [await newUser(), await newUser()];
        for (const o of ops) await run(o, users[o.user] as ModelUser);
        for (const u of users) {
          const account = await platform.deps.db.models.UserAccount.findByPk(u.id);
          expect(formatMoney(account?.balance ?? 0)).toBe(formatMoney(u.balance));
          expect(await checkLedgerIntegrity(platform.deps, { userId: u.id })).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
    expect(await checkLedgerIntegrity(platform.deps)).toEqual([]);
  });
});
