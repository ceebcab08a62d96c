import type { Migration } from './types.js';

const PRODUCT_TYPES_SQL = "('cloud_server', 'game_cloud', 'cloud_desktop', 'bare_metal', 'cdn', 'other', 'physical_machine', 'web_hosting')";
const OPERATOR_TYPES_SQL = "('admin', 'user', 'system')";
const MONEY_TABLES = ['invoices', 'invoice_items', 'orders', 'payments', 'account_transactions', 'recharge_records', 'refunds', 'user_accounts'];

/**
 * Money: the cash account per user and its ledger, invoices (the main financial entity) with
 * their items, orders, third-party payments, recharge records, refunds, and the minimal
 * services table that purchases create.
 *
 * What the database itself guarantees (so that no code path can break it):
 * - a balance changes only by inserting an account transaction: the insert trigger moves the
 *   account from `balance_before`/`seq - 1` to `balance_after`/`seq` or fails, and a direct
 *   UPDATE of the balance is refused; `(user_id, seq)` is UNIQUE, so two writers that skipped
 *   the row lock cannot both append; a balance goes below zero only by an admin deduction;
 * - account transactions never change; no money document is ever deleted;
 * - a paid invoice's amount equals its balance part plus its third-party part; refunds never
 *   exceed the amount; a refund (red-entry) invoice points at its original;
 * - an offset recharge record is counted into its original's `offset_amount`, which may never
 *   exceed the original's amount;
 * - every effect that moves money carries a UNIQUE idempotency key (ledger key, payment_no,
 *   (gateway, trade_no), one recharge record per payment / per account transaction, one
 *   offset per refund and original, one out_request_no per original refund, one pending QR
 *   payment per invoice, one service per purchase line).
 */
export const migration0004Money: Migration = {
  name: '0004-money',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE SEQUENCE invoice_no_seq;
      CREATE SEQUENCE order_no_seq;
      CREATE SEQUENCE payment_no_seq;
      CREATE SEQUENCE refund_no_seq;
      CREATE SEQUENCE recharge_record_no_seq;

      -- Document numbers: prefix, the Asia/Shanghai date, a 10-digit sequence value (unique, at most 21 chars).
      CREATE FUNCTION money_document_no(prefix TEXT, seq REGCLASS) RETURNS VARCHAR LANGUAGE sql VOLATILE AS $$
        SELECT prefix || to_char(now() AT TIME ZONE 'Asia/Shanghai', 'YYYYMMDD') || lpad(nextval(seq)::text, 10, '0')
      $$;

      CREATE FUNCTION money_forbid_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'money documents are never deleted (%); record a reversal instead', TG_TABLE_NAME;
      END $$;

      CREATE TABLE user_accounts (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        balance NUMERIC(14,2) NOT NULL DEFAULT 0,
        last_seq INTEGER NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE invoices (
        id SERIAL PRIMARY KEY,
        invoice_no VARCHAR(32) NOT NULL UNIQUE DEFAULT money_document_no('INV', 'invoice_no_seq'),
        user_id INTEGER NOT NULL REFERENCES users(id),
        type VARCHAR(24) NOT NULL CHECK (type IN ('purchase', 'renew', 'traffic_package', 'recharge', 'deduction', 'refund')),
        status VARCHAR(24) NOT NULL CHECK (status IN ('unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled')),
        subject VARCHAR(128) NOT NULL,
        amount NUMERIC(14,2) NOT NULL,
        balance_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        third_party_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        refunded_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        payment_channel VARCHAR(16) CHECK (payment_channel IN ('balance', 'qrpay', 'mixed', 'admin', 'free')),
        origin_invoice_id INTEGER REFERENCES invoices(id),
        service_id INTEGER,
        payload JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(payload) = 'object'),
        due_at TIMESTAMPTZ,
        paid_at TIMESTAMPTZ,
        dispatched_at TIMESTAMPTZ,
        cancelled_at TIMESTAMPTZ,
        remark VARCHAR(255) NOT NULL DEFAULT '',
        operator_type VARCHAR(16) NOT NULL DEFAULT 'user' CHECK (operator_type IN ${OPERATOR_TYPES_SQL}),
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT invoices_red_entry CHECK ((type = 'refund') = (origin_invoice_id IS NOT NULL)),
        CONSTRAINT invoices_signs CHECK (
          (type = 'refund' AND amount < 0 AND balance_amount <= 0 AND third_party_amount <= 0 AND refunded_amount = 0)
          OR (type <> 'refund' AND amount >= 0 AND balance_amount >= 0 AND third_party_amount >= 0)
        ),
        CONSTRAINT invoices_parts_within_amount CHECK (abs(balance_amount) + abs(third_party_amount) <= abs(amount)),
        CONSTRAINT invoices_paid_parts_add_up CHECK (
          status NOT IN ('paid', 'partially_refunded', 'refunded') OR amount = balance_amount + third_party_amount
        ),
        CONSTRAINT invoices_refunded_within_amount CHECK (refunded_amount >= 0 AND (type = 'refund' OR refunded_amount <= amount)),
        CONSTRAINT invoices_status_facts CHECK (
          (status = 'unpaid' AND paid_at IS NULL AND refunded_amount = 0 AND third_party_amount = 0)
          OR (status = 'cancelled' AND paid_at IS NULL AND refunded_amount = 0 AND balance_amount = 0 AND third_party_amount = 0)
          OR (status = 'paid' AND paid_at IS NOT NULL AND refunded_amount = 0)
          OR (status = 'partially_refunded' AND paid_at IS NOT NULL AND refunded_amount > 0 AND refunded_amount < amount)
          OR (status = 'refunded' AND paid_at IS NOT NULL AND refunded_amount = amount AND amount > 0)
        )
      );
      CREATE INDEX invoices_user_idx ON invoices (user_id, id DESC);
      CREATE INDEX invoices_status_idx ON invoices (status, id DESC);
      CREATE INDEX invoices_origin_idx ON invoices (origin_invoice_id) WHERE origin_invoice_id IS NOT NULL;
      CREATE INDEX invoices_undispatched_idx ON invoices (paid_at) WHERE dispatched_at IS NULL AND paid_at IS NOT NULL;

      CREATE TABLE invoice_items (
        id SERIAL PRIMARY KEY,
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        item_key VARCHAR(64) NOT NULL DEFAULT '',
        description VARCHAR(255) NOT NULL,
        unit_amount NUMERIC(14,2) NOT NULL,
        quantity INTEGER NOT NULL CHECK (quantity >= 1),
        amount NUMERIC(14,2) NOT NULL,
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX invoice_items_invoice_idx ON invoice_items (invoice_id, sort_order, id);

      CREATE TABLE orders (
        id SERIAL PRIMARY KEY,
        order_no VARCHAR(32) NOT NULL UNIQUE DEFAULT money_document_no('ORD', 'order_no_seq'),
        user_id INTEGER NOT NULL REFERENCES users(id),
        invoice_id INTEGER NOT NULL UNIQUE REFERENCES invoices(id),
        type VARCHAR(24) NOT NULL CHECK (type IN ('new_purchase', 'renewal', 'traffic_package')),
        status VARCHAR(16) NOT NULL CHECK (status IN ('pending', 'paid', 'completed', 'cancelled', 'refunded')),
        product_id INTEGER REFERENCES products(id),
        service_id INTEGER,
        amount NUMERIC(14,2) NOT NULL CHECK (amount >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        billing_period VARCHAR(32) NOT NULL DEFAULT '',
        quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity >= 1),
        config JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config) = 'object'),
        paid_at TIMESTAMPTZ,
        completed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT orders_paid_at CHECK (status IN ('pending', 'cancelled') OR paid_at IS NOT NULL)
      );
      CREATE INDEX orders_user_idx ON orders (user_id, id DESC);

      CREATE TABLE services (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        product_id INTEGER NOT NULL REFERENCES products(id),
        order_id INTEGER NOT NULL REFERENCES orders(id),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        seq INTEGER NOT NULL DEFAULT 1 CHECK (seq >= 1),
        status VARCHAR(24) NOT NULL DEFAULT 'pending',
        product_type VARCHAR(32) NOT NULL CHECK (product_type IN ${PRODUCT_TYPES_SQL}),
        billing_period VARCHAR(32) NOT NULL,
        config JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config) = 'object'),
        price NUMERIC(14,2) NOT NULL CHECK (price >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        next_due_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT services_status_check CHECK (status IN ('pending', 'provisioning', 'active', 'suspended', 'terminated', 'cancelled', 'failed')),
        CONSTRAINT services_one_per_purchase_line UNIQUE (invoice_id, seq)
      );
      CREATE INDEX services_user_idx ON services (user_id, id DESC);
      ALTER TABLE invoices ADD CONSTRAINT invoices_service_fk FOREIGN KEY (service_id) REFERENCES services(id);
      ALTER TABLE orders ADD CONSTRAINT orders_service_fk FOREIGN KEY (service_id) REFERENCES services(id);

      CREATE TABLE payments (
        id SERIAL PRIMARY KEY,
        payment_no VARCHAR(64) NOT NULL UNIQUE DEFAULT money_document_no('PAY', 'payment_no_seq'),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        gateway VARCHAR(64) NOT NULL,
        trade_no VARCHAR(64),
        amount NUMERIC(14,2) NOT NULL CHECK (amount > 0),
        balance_part NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (balance_part >= 0),
        refunded_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        status VARCHAR(24) NOT NULL CHECK (status IN ('pending', 'paid', 'closed', 'partially_refunded', 'refunded')),
        settlement VARCHAR(24) CHECK (settlement IN ('invoice', 'balance_credit')),
        paid_source VARCHAR(16) CHECK (paid_source IN ('notify', 'poll', 'close')),
        notify_id VARCHAR(64),
        qr_code_url VARCHAR(512) NOT NULL DEFAULT '',
        expires_at TIMESTAMPTZ NOT NULL,
        paid_at TIMESTAMPTZ,
        closed_at TIMESTAMPTZ,
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT payments_trade_unique UNIQUE (gateway, trade_no),
        CONSTRAINT payments_refunded_within_amount CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
        CONSTRAINT payments_status_facts CHECK (
          (status = 'pending' AND paid_at IS NULL AND closed_at IS NULL AND settlement IS NULL AND refunded_amount = 0)
          OR (status = 'closed' AND paid_at IS NULL AND closed_at IS NOT NULL AND settlement IS NULL AND refunded_amount = 0)
          OR (status = 'paid' AND trade_no IS NOT NULL AND paid_at IS NOT NULL AND settlement IS NOT NULL AND paid_source IS NOT NULL AND refunded_amount = 0)
          OR (status = 'partially_refunded' AND paid_at IS NOT NULL AND refunded_amount > 0 AND refunded_amount < amount)
          OR (status = 'refunded' AND paid_at IS NOT NULL AND refunded_amount = amount)
        )
      );
      CREATE UNIQUE INDEX payments_one_pending_per_invoice ON payments (invoice_id) WHERE status = 'pending';
      CREATE INDEX payments_invoice_idx ON payments (invoice_id, id DESC);
      CREATE INDEX payments_user_idx ON payments (user_id, id DESC);
      CREATE INDEX payments_plugin_idx ON payments (plugin_id);
      CREATE INDEX payments_pending_expiry_idx ON payments (expires_at) WHERE status = 'pending';

      CREATE TABLE refunds (
        id SERIAL PRIMARY KEY,
        refund_no VARCHAR(32) NOT NULL UNIQUE DEFAULT money_document_no('RF', 'refund_no_seq'),
        user_id INTEGER NOT NULL REFERENCES users(id),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        refund_invoice_id INTEGER UNIQUE REFERENCES invoices(id),
        payment_id INTEGER REFERENCES payments(id),
        amount NUMERIC(14,2) NOT NULL CHECK (amount > 0),
        balance_part NUMERIC(14,2) NOT NULL CHECK (balance_part >= 0),
        third_party_part NUMERIC(14,2) NOT NULL CHECK (third_party_part >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        refund_method VARCHAR(16) NOT NULL CHECK (refund_method IN ('balance', 'original')),
        status VARCHAR(16) NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
        reason VARCHAR(255) NOT NULL DEFAULT '',
        scope JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(scope) = 'array'),
        out_request_no VARCHAR(64) UNIQUE,
        failure_reason VARCHAR(255) NOT NULL DEFAULT '',
        operator_type VARCHAR(16) NOT NULL CHECK (operator_type IN ${OPERATOR_TYPES_SQL}),
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        refunded_at TIMESTAMPTZ,
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT refunds_parts_add_up CHECK (amount = balance_part + third_party_part),
        CONSTRAINT refunds_third_party_needs_payment CHECK (third_party_part = 0 OR payment_id IS NOT NULL),
        CONSTRAINT refunds_original_route CHECK (
          (refund_method = 'original' AND out_request_no IS NOT NULL AND third_party_part > 0)
          OR (refund_method = 'balance' AND out_request_no IS NULL)
        ),
        CONSTRAINT refunds_status_facts CHECK (
          (status = 'succeeded' AND refunded_at IS NOT NULL AND refund_invoice_id IS NOT NULL)
          OR (status IN ('processing', 'failed') AND refunded_at IS NULL AND refund_invoice_id IS NULL)
        )
      );
      CREATE INDEX refunds_invoice_idx ON refunds (invoice_id, id DESC);
      CREATE INDEX refunds_user_idx ON refunds (user_id, id DESC);

      CREATE TABLE account_transactions (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES user_accounts(user_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        type VARCHAR(24) NOT NULL,
        amount NUMERIC(14,2) NOT NULL CHECK (amount <> 0),
        balance_before NUMERIC(14,2) NOT NULL,
        balance_after NUMERIC(14,2) NOT NULL,
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        invoice_id INTEGER REFERENCES invoices(id),
        payment_id INTEGER REFERENCES payments(id),
        refund_id INTEGER REFERENCES refunds(id),
        idempotency_key VARCHAR(96) NOT NULL UNIQUE,
        remark VARCHAR(255) NOT NULL DEFAULT '',
        operator_type VARCHAR(16) NOT NULL CHECK (operator_type IN ${OPERATOR_TYPES_SQL}),
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT account_transactions_chain UNIQUE (user_id, seq),
        CONSTRAINT account_transactions_arithmetic CHECK (balance_after = balance_before + amount),
        CONSTRAINT account_transactions_sign CHECK (
          (type IN ('recharge', 'admin_recharge', 'payment_reversal', 'refund') AND amount > 0)
          OR (type IN ('payment', 'admin_deduction') AND amount < 0)
        ),
        CONSTRAINT account_transactions_no_overdraft CHECK (balance_after >= 0 OR amount > 0 OR type = 'admin_deduction')
      );
      CREATE INDEX account_transactions_user_idx ON account_transactions (user_id, id DESC);
      CREATE INDEX account_transactions_invoice_idx ON account_transactions (invoice_id);

      -- The only way a balance moves: the account follows its ledger, in sequence, or the insert fails.
      CREATE FUNCTION account_transactions_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE user_accounts SET balance = NEW.balance_after, last_seq = NEW.seq, updated_at = now()
         WHERE user_id = NEW.user_id AND balance = NEW.balance_before AND last_seq = NEW.seq - 1;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'ledger of user % out of sequence at seq %', NEW.user_id, NEW.seq;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER account_transactions_apply AFTER INSERT ON account_transactions
        FOR EACH ROW EXECUTE FUNCTION account_transactions_apply();

      CREATE FUNCTION account_transactions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'account transactions never change; record a reversal instead';
      END $$;
      CREATE TRIGGER account_transactions_immutable BEFORE UPDATE OR DELETE ON account_transactions
        FOR EACH ROW EXECUTE FUNCTION account_transactions_immutable();

      CREATE FUNCTION user_accounts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' AND (NEW.balance <> 0 OR NEW.last_seq <> 0) THEN
          RAISE EXCEPTION 'an account opens with a zero balance';
        END IF;
        IF TG_OP = 'UPDATE' AND (NEW.balance IS DISTINCT FROM OLD.balance OR NEW.last_seq IS DISTINCT FROM OLD.last_seq)
           AND pg_trigger_depth() < 2 THEN
          RAISE EXCEPTION 'a balance changes only through account_transactions';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER user_accounts_guard BEFORE INSERT OR UPDATE ON user_accounts
        FOR EACH ROW EXECUTE FUNCTION user_accounts_guard();

      CREATE TABLE recharge_records (
        id SERIAL PRIMARY KEY,
        record_no VARCHAR(32) NOT NULL UNIQUE DEFAULT money_document_no('RC', 'recharge_record_no_seq'),
        user_id INTEGER NOT NULL REFERENCES users(id),
        order_id INTEGER REFERENCES orders(id),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        payment_id INTEGER UNIQUE REFERENCES payments(id),
        account_transaction_id INTEGER UNIQUE REFERENCES account_transactions(id),
        refund_id INTEGER REFERENCES refunds(id),
        origin_recharge_record_id INTEGER REFERENCES recharge_records(id),
        scene VARCHAR(24) NOT NULL CHECK (scene IN ('new_purchase', 'renewal', 'user_recharge', 'admin_recharge', 'refund')),
        direction VARCHAR(8) NOT NULL CHECK (direction IN ('in', 'out')),
        entry_type VARCHAR(16) NOT NULL CHECK (entry_type IN ('third_party', 'admin')),
        amount NUMERIC(14,2) NOT NULL CHECK (amount <> 0),
        offset_amount NUMERIC(14,2) NOT NULL DEFAULT 0,
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        remark VARCHAR(255) NOT NULL DEFAULT '',
        reason VARCHAR(255) NOT NULL DEFAULT '',
        operator_type VARCHAR(16) NOT NULL CHECK (operator_type IN ${OPERATOR_TYPES_SQL}),
        operator_id INTEGER,
        operator_name VARCHAR(64) NOT NULL DEFAULT '',
        trace_id VARCHAR(64) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT recharge_records_shape CHECK (
          (direction = 'in' AND scene <> 'refund' AND amount > 0 AND origin_recharge_record_id IS NULL AND refund_id IS NULL
            AND offset_amount >= 0 AND offset_amount <= amount)
          OR (direction = 'out' AND scene = 'refund' AND amount < 0 AND origin_recharge_record_id IS NOT NULL AND refund_id IS NOT NULL
            AND offset_amount = 0 AND payment_id IS NULL AND account_transaction_id IS NULL)
        ),
        CONSTRAINT recharge_records_entry CHECK ((scene = 'admin_recharge') = (entry_type = 'admin')
          OR (scene = 'refund' AND entry_type IN ('third_party', 'admin'))),
        CONSTRAINT recharge_records_third_party_has_payment CHECK (
          direction = 'out' OR entry_type = 'admin' OR payment_id IS NOT NULL
        ),
        CONSTRAINT recharge_records_one_offset_per_refund UNIQUE (refund_id, origin_recharge_record_id)
      );
      CREATE INDEX recharge_records_user_idx ON recharge_records (user_id, id DESC);
      CREATE INDEX recharge_records_invoice_idx ON recharge_records (invoice_id);
      CREATE INDEX recharge_records_origin_idx ON recharge_records (origin_recharge_record_id) WHERE origin_recharge_record_id IS NOT NULL;

      -- An offset counts against its original at once; the original's CHECK refuses more than it holds.
      CREATE FUNCTION recharge_records_count_offset() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.direction = 'out' THEN
          UPDATE recharge_records SET offset_amount = offset_amount - NEW.amount, updated_at = now()
           WHERE id = NEW.origin_recharge_record_id AND direction = 'in' AND user_id = NEW.user_id;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'offset recharge record % has no original of the same user', NEW.id;
          END IF;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER recharge_records_count_offset AFTER INSERT ON recharge_records
        FOR EACH ROW EXECUTE FUNCTION recharge_records_count_offset();

      CREATE FUNCTION recharge_records_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF pg_trigger_depth() < 2 OR (to_jsonb(NEW) - 'offset_amount' - 'updated_at') <> (to_jsonb(OLD) - 'offset_amount' - 'updated_at') THEN
          RAISE EXCEPTION 'recharge records never change; record an offset instead';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER recharge_records_guard BEFORE UPDATE ON recharge_records
        FOR EACH ROW EXECUTE FUNCTION recharge_records_guard();

      ALTER TABLE account_transactions ADD CONSTRAINT account_transactions_refund_fk FOREIGN KEY (refund_id) REFERENCES refunds(id);
    `);
    for (const table of MONEY_TABLES) {
      await sequelize.query(
        `CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION money_forbid_delete();`,
      );
    }
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS recharge_records, account_transactions, refunds, payments, services, orders, invoice_items, invoices, user_accounts CASCADE;
      DROP FUNCTION IF EXISTS recharge_records_guard(), recharge_records_count_offset(), user_accounts_guard(),
        account_transactions_immutable(), account_transactions_apply(), money_forbid_delete(), money_document_no(TEXT, REGCLASS);
      DROP SEQUENCE IF EXISTS invoice_no_seq, order_no_seq, payment_no_seq, refund_no_seq, recharge_record_no_seq;
    `);
  },
};
