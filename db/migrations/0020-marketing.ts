import type { Migration } from './types.js';

/**
 * Marketing on the ledger (issue 17): coupons and campaigns, member levels, referral accounts,
 * the commission ledger and withdrawals. Every exactly-once rule sits in the database:
 * - a coupon's `used` never passes `total_uses` and a user's never passes `per_user_limit`
 *   (CHECKs; the reserving UPDATEs are guarded the same way), one use per invoice (UNIQUE);
 * - a user's referrer is written once, never to themself, and can never change (trigger);
 * - one commission per invoice and one clawback per refund (UNIQUE idempotency keys);
 * - a withdrawal moves through its states by guarded UPDATEs; the referral account's
 *   columns never go below zero except `available`, which only a clawback may take negative.
 * The account transaction of a withdrawal to the balance gets its own type.
 */
export const migration0020Marketing: Migration = {
  name: '0020-marketing',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE member_levels (
        id SERIAL PRIMARY KEY,
        name VARCHAR(64) NOT NULL UNIQUE,
        discount_percent NUMERIC(5,2) NOT NULL DEFAULT 0 CHECK (discount_percent >= 0 AND discount_percent < 100),
        product_ids JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(product_ids) = 'array'),
        menu_ids JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(menu_ids) = 'array'),
        commission_rate NUMERIC(5,2) NOT NULL DEFAULT 0 CHECK (commission_rate >= 0 AND commission_rate <= 100),
        min_spend NUMERIC(14,2) CHECK (min_spend IS NULL OR min_spend >= 0),
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE user_member_levels (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        level_id INTEGER NOT NULL REFERENCES member_levels(id),
        source VARCHAR(8) NOT NULL CHECK (source IN ('admin', 'spend')),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX user_member_levels_level_idx ON user_member_levels (level_id);

      CREATE TABLE coupon_campaigns (
        id SERIAL PRIMARY KEY,
        name VARCHAR(64) NOT NULL,
        description VARCHAR(255) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE coupons (
        id SERIAL PRIMARY KEY,
        code VARCHAR(32) NOT NULL UNIQUE CHECK (code = upper(code) AND code ~ '^[A-Z0-9_-]{4,32}$'),
        name VARCHAR(64) NOT NULL,
        kind VARCHAR(8) NOT NULL CHECK (kind IN ('percent', 'fixed')),
        value NUMERIC(14,2) NOT NULL CHECK (value > 0 AND (kind = 'fixed' OR value < 100)),
        min_amount NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (min_amount >= 0),
        product_ids JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(product_ids) = 'array'),
        menu_ids JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(menu_ids) = 'array'),
        new_customers_only BOOLEAN NOT NULL DEFAULT false,
        scenes JSONB NOT NULL DEFAULT '["purchase"]'::jsonb CHECK (jsonb_typeof(scenes) = 'array'),
        starts_at TIMESTAMPTZ,
        ends_at TIMESTAMPTZ,
        total_uses INTEGER CHECK (total_uses IS NULL OR total_uses >= 1),
        per_user_limit INTEGER CHECK (per_user_limit IS NULL OR per_user_limit >= 1),
        used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0 AND (total_uses IS NULL OR used <= total_uses)),
        status VARCHAR(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        is_public BOOLEAN NOT NULL DEFAULT false,
        owner_user_id INTEGER REFERENCES users(id),
        campaign_id INTEGER REFERENCES coupon_campaigns(id),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at)
      );
      CREATE INDEX coupons_campaign_idx ON coupons (campaign_id) WHERE campaign_id IS NOT NULL;
      CREATE INDEX coupons_owner_idx ON coupons (owner_user_id) WHERE owner_user_id IS NOT NULL;

      CREATE TABLE coupon_user_uses (
        coupon_id INTEGER NOT NULL REFERENCES coupons(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        used INTEGER NOT NULL CHECK (used >= 0),
        PRIMARY KEY (coupon_id, user_id)
      );

      CREATE TABLE coupon_uses (
        id SERIAL PRIMARY KEY,
        coupon_id INTEGER NOT NULL REFERENCES coupons(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        invoice_id INTEGER NOT NULL UNIQUE REFERENCES invoices(id),
        scene VARCHAR(16) NOT NULL CHECK (scene IN ('purchase', 'renewal', 'upgrade')),
        discount_amount NUMERIC(14,2) NOT NULL CHECK (discount_amount >= 0),
        status VARCHAR(16) NOT NULL CHECK (status IN ('reserved', 'final', 'released')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX coupon_uses_coupon_idx ON coupon_uses (coupon_id, id DESC);
      CREATE INDEX coupon_uses_user_idx ON coupon_uses (user_id, id DESC);

      CREATE TABLE referral_accounts (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        code VARCHAR(16) NOT NULL UNIQUE,
        referrer_id INTEGER REFERENCES users(id),
        bound_at TIMESTAMPTZ,
        pending_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        available_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        frozen_amount NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (frozen_amount >= 0),
        withdrawn_amount NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (withdrawn_amount >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (referrer_id IS NULL OR referrer_id <> user_id),
        CHECK ((referrer_id IS NULL) = (bound_at IS NULL))
      );
      CREATE INDEX referral_accounts_referrer_idx ON referral_accounts (referrer_id, user_id DESC) WHERE referrer_id IS NOT NULL;

      CREATE FUNCTION referral_referrer_is_final() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.referrer_id IS DISTINCT FROM OLD.referrer_id THEN
          RAISE EXCEPTION 'referrer of user % cannot change', OLD.user_id;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER referral_referrer_is_final BEFORE UPDATE OF referrer_id ON referral_accounts
        FOR EACH ROW EXECUTE FUNCTION referral_referrer_is_final();

      CREATE TABLE commission_product_rates (
        product_id INTEGER PRIMARY KEY REFERENCES products(id),
        rate NUMERIC(5,2) NOT NULL CHECK (rate >= 0 AND rate <= 100),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE commission_entries (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        invitee_id INTEGER NOT NULL REFERENCES users(id),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        refund_id INTEGER REFERENCES refunds(id),
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('commission', 'clawback')),
        base_amount NUMERIC(14,2) NOT NULL CHECK (base_amount >= 0),
        rate NUMERIC(5,2) NOT NULL CHECK (rate >= 0 AND rate <= 100),
        amount NUMERIC(14,2) NOT NULL,
        status VARCHAR(16) NOT NULL CHECK (status IN ('pending', 'available')),
        available_at TIMESTAMPTZ NOT NULL,
        released_at TIMESTAMPTZ,
        idempotency_key VARCHAR(96) NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((kind = 'commission' AND amount > 0 AND refund_id IS NULL) OR (kind = 'clawback' AND amount < 0 AND refund_id IS NOT NULL)),
        CHECK ((status = 'available') = (released_at IS NOT NULL))
      );
      CREATE UNIQUE INDEX commission_entries_one_per_invoice ON commission_entries (invoice_id) WHERE kind = 'commission';
      CREATE UNIQUE INDEX commission_entries_one_per_refund ON commission_entries (refund_id) WHERE kind = 'clawback';
      CREATE INDEX commission_entries_user_idx ON commission_entries (user_id, id DESC);
      CREATE INDEX commission_entries_due_idx ON commission_entries (available_at) WHERE status = 'pending';

      CREATE SEQUENCE referral_withdrawal_no_seq;
      CREATE TABLE referral_withdrawals (
        id SERIAL PRIMARY KEY,
        withdrawal_no VARCHAR(32) NOT NULL UNIQUE DEFAULT money_document_no('WD', 'referral_withdrawal_no_seq'),
        user_id INTEGER NOT NULL REFERENCES users(id),
        amount NUMERIC(14,2) NOT NULL CHECK (amount > 0),
        method VARCHAR(16) NOT NULL CHECK (method IN ('balance', 'external')),
        account_name VARCHAR(64) NOT NULL DEFAULT '',
        account_no VARCHAR(64) NOT NULL DEFAULT '',
        status VARCHAR(16) NOT NULL CHECK (status IN ('pending', 'approved', 'paid', 'rejected')),
        reject_reason VARCHAR(255) NOT NULL DEFAULT '',
        account_transaction_id INTEGER UNIQUE REFERENCES account_transactions(id),
        reviewed_by INTEGER,
        reviewed_at TIMESTAMPTZ,
        paid_at TIMESTAMPTZ,
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((method = 'external') = (account_no <> '')),
        CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
        CHECK (account_transaction_id IS NULL OR (method = 'balance' AND status = 'paid'))
      );
      CREATE INDEX referral_withdrawals_user_idx ON referral_withdrawals (user_id, id DESC);
      CREATE INDEX referral_withdrawals_status_idx ON referral_withdrawals (status, id DESC);

      ALTER TABLE account_transactions DROP CONSTRAINT account_transactions_sign;
      ALTER TABLE account_transactions ADD CONSTRAINT account_transactions_sign CHECK (
        (type IN ('recharge', 'admin_recharge', 'payment_reversal', 'refund', 'upgrade_credit', 'commission_withdrawal') AND amount > 0)
        OR (type IN ('payment', 'admin_deduction') AND amount < 0)
      );
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE account_transactions DROP CONSTRAINT account_transactions_sign;
      ALTER TABLE account_transactions ADD CONSTRAINT account_transactions_sign CHECK (
        (type IN ('recharge', 'admin_recharge', 'payment_reversal', 'refund', 'upgrade_credit') AND amount > 0)
        OR (type IN ('payment', 'admin_deduction') AND amount < 0)
      );
      DROP TABLE IF EXISTS referral_withdrawals, commission_entries, commission_product_rates, referral_accounts,
        coupon_uses, coupon_user_uses, coupons, coupon_campaigns, user_member_levels, member_levels CASCADE;
      DROP SEQUENCE IF EXISTS referral_withdrawal_no_seq;
      DROP FUNCTION IF EXISTS referral_referrer_is_final();
    `);
  },
};
