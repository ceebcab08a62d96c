import { hashPassword } from '../../domain/auth/passwords.js';
import { systemAudit, userAudit } from '../../domain/billing/audit.js';
import { createPurchaseInvoice } from '../../domain/billing/invoices/create-purchase-invoice.js';
import { payInvoiceByBalance } from '../../domain/billing/payments/pay-invoice-by-balance.js';
import { adjustBalance } from '../../domain/billing/recharge/adjust-balance.js';
import type { DomainDeps } from '../../domain/deps.js';
import { createCampaign, createCoupon } from '../../domain/marketing/coupons.js';
import { createMemberLevel } from '../../domain/marketing/member-levels.js';
import { ensureReferralAccount, openReferralAccountAtRegistration } from '../../domain/marketing/referral-accounts.js';
import { money } from '../../lib/money.js';
import { inTransaction, sqlOne } from '../../db/sql.js';
import { DEMO_CLIENT } from './demo.js';

export const DEMO_INVITEE = { email: 'invitee@example.com', password: 'invitee-password-2026' } as const;

const template = {
  min_amount: '0',
  product_ids: [],
  menu_ids: [],
  new_customers_only: false,
  scenes: ['purchase' as const],
  starts_at: null,
  ends_at: null,
  total_uses: null,
  per_user_limit: null,
  status: 'active' as const,
  is_public: false,
  owner_user_id: null,
};

/**
 * Marketing demo data for `npm run dev` (after the demo client and catalogue): a member level
 * reached by spend, a public welcome coupon, a campaign with a shared code, and a referral pair
 * — the demo client invited `invitee@example.com`, who bought and paid one product, so the demo
 * client has a pending commission. Every step looks first, so a second start changes nothing.
 */
export async function seedDemoMarketing(deps: DomainDeps): Promise<string[]> {
  const created: string[] = [];
  if (!(await sqlOne(deps, 'SELECT id FROM member_levels WHERE name = $1', ['金牌会员']))) {
    await createMemberLevel(deps, { name: '金牌会员', discount_percent: '5', product_ids: [], menu_ids: [], commission_rate: '8', min_spend: '1000', sort_order: 1 });
    created.push('member_level:金牌会员');
  }
  if (!(await sqlOne(deps, 'SELECT id FROM coupons WHERE code = $1', ['WELCOME10']))) {
    await createCoupon(deps, { ...template, code: 'WELCOME10', name: '新客九折', kind: 'percent', value: '10', new_customers_only: true, per_user_limit: 1, is_public: true });
    created.push('coupon:WELCOME10');
  }
  if (!(await sqlOne(deps, 'SELECT id FROM coupon_campaigns WHERE name = $1', ['开业活动']))) {
    await createCampaign(deps, {
      name: '开业活动',
      description: '满 100 减 20，共享码',
      mode: 'shared',
      count: 1,
      code_prefix: '',
      code: 'OPEN2026',
      coupon: { ...template, name: '开业满减', kind: 'fixed', value: '20', min_amount: '100', total_uses: 500, per_user_limit: 1, scenes: ['purchase', 'renewal'] },
    });
    created.push('coupon_campaign:开业活动');
  }

  const referrer = await deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
  const invited = await deps.db.models.User.findOne({ where: { email: DEMO_INVITEE.email } });
  const product = await sqlOne<{ id: number; pricing: Record<string, string> }>(
    deps,
    `SELECT p.id, p.pricing FROM products p JOIN product_menus m ON m.id = p.first_product_group_id
      WHERE p.deleted_at IS NULL AND p.status = 'active' AND p.product_type = 'cloud_server' AND m.is_visible = 1 ORDER BY p.id LIMIT 1`,
    [],
  );
  if (referrer && !invited && product) {
    const { code } = await ensureReferralAccount(deps, referrer.id);
    const user = await deps.db.models.User.create({
      email: DEMO_INVITEE.email,
      phone: null,
      nickname: '被邀请的演示用户',
      password_hash: await hashPassword(DEMO_INVITEE.password),
      status: 'active',
      email_verified_at: new Date(),
    });
    await inTransaction(deps, (tx) => openReferralAccountAtRegistration(deps, user.id, code, tx));
    const period = Object.keys(product.pricing)[0] ?? 'monthly';
    const { invoice } = await createPurchaseInvoice(deps, { userId: user.id, productId: product.id, billingPeriod: period, config: {}, quantity: 1 }, userAudit(user.id, 'seed'));
    await adjustBalance(deps, { userId: user.id, amount: money(invoice.amount).plus(100), remark: '演示充值' }, systemAudit('seed'));
    await payInvoiceByBalance(deps, { userId: user.id, invoiceId: invoice.id }, userAudit(user.id, 'seed'));
    created.push(`referral:${DEMO_CLIENT.email}→${DEMO_INVITEE.email}`);
  }
  return created;
}
