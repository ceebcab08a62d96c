import type { Migration } from './types.js';

/**
 * The transactional outbox: one row per thing that must follow a commit (start a workflow, deliver
 * a signal or an admin decision), written in the same transaction as the change that promises it,
 * so a process that dies right after the commit cannot lose it. `key` is deterministic
 * (`fulfil:<invoice id>`, `payment:<payment no>`…) and UNIQUE: the same promise is recorded once.
 * The relay in the worker process claims due rows (`next_attempt_at`), performs them with
 * idempotent workflow ids and sets `done_at`; a failure counts `attempts`, pushes
 * `next_attempt_at` back and keeps a short, redacted `last_error`. Paid invoices whose dispatch was
 * never recorded get their row now, so the relay repairs them without waiting for the backstop.
 */
export const migration0013Outbox: Migration = {
  name: '0013-outbox',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE outbox (
        id BIGSERIAL PRIMARY KEY,
        kind VARCHAR(32) NOT NULL CHECK (kind IN ('start_fulfilment', 'start_payment', 'start_refund', 'decide_provisioning', 'decide_service_order')),
        key VARCHAR(191) NOT NULL CONSTRAINT outbox_key_unique UNIQUE,
        payload JSONB NOT NULL DEFAULT '{}',
        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        done_at TIMESTAMPTZ,
        last_error VARCHAR(300),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE done_at IS NULL;
      CREATE INDEX outbox_done_idx ON outbox (done_at) WHERE done_at IS NOT NULL;
      INSERT INTO outbox (kind, key, payload)
        SELECT 'start_fulfilment', 'fulfil:' || id, jsonb_build_object('invoice_id', id) FROM invoices
         WHERE dispatched_at IS NULL AND paid_at IS NOT NULL AND status IN ('paid', 'partially_refunded')
           AND type IN ('purchase', 'renew', 'traffic_package');
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS outbox');
  },
};
