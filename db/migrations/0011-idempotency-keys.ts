import type { Migration } from './types.js';

/**
 * Idempotency keys of the client's creating POSTs (`Idempotency-Key` header): one row per
 * (scope, key), claimed `in_progress` by an INSERT before the handler runs and turned `done`
 * with the answer to replay. The UNIQUE constraint is what makes two concurrent requests with
 * one key run the handler once. `claim_token` identifies the claim, so a request whose claim was
 * taken over (expired, or abandoned by a crashed process) can neither store nor delete another's.
 * The answer is kept as the exact text sent (not JSONB, which would reorder its keys).
 */
export const migration0011IdempotencyKeys: Migration = {
  name: '0011-idempotency-keys',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE idempotency_keys (
        id BIGSERIAL PRIMARY KEY,
        scope VARCHAR(64) NOT NULL,
        key VARCHAR(255) NOT NULL CHECK (key ~ '^[ -~]{1,255}$'),
        method VARCHAR(8) NOT NULL,
        route VARCHAR(255) NOT NULL,
        fingerprint CHAR(64) NOT NULL,
        state VARCHAR(16) NOT NULL CHECK (state IN ('in_progress', 'done')),
        claim_token UUID NOT NULL,
        response_status SMALLINT,
        response_body TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        completed_at TIMESTAMPTZ,
        expires_at TIMESTAMPTZ NOT NULL,
        CONSTRAINT idempotency_keys_once UNIQUE (scope, key),
        CONSTRAINT idempotency_keys_answer CHECK (
          (state = 'done') = (response_status IS NOT NULL AND response_body IS NOT NULL AND completed_at IS NOT NULL)
        )
      );
      CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS idempotency_keys;');
  },
};
