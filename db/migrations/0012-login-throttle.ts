import type { Migration } from './types.js';

/**
 * Login throttling by account and address together. `address_key` is the address the throttle
 * counts by (an IPv4 address, or the configured IPv6 prefix: one subscriber holds a whole /64,
 * so single IPv6 addresses would give an attacker endless fresh budgets); `ip` stays the exact
 * address for the admin. The partial indexes hold only the attempts that count as guesses
 * ('pending' is an attempt being verified), so a flood of refused attempts does not slow the
 * counts. The subject index finds the failures since an account's previous successful login.
 * Rows written before this migration get their exact address as key.
 */
export const migration0012LoginThrottle: Migration = {
  name: '0012-login-throttle',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE login_logs ADD COLUMN address_key VARCHAR(64) NOT NULL DEFAULT '';
      UPDATE login_logs SET address_key = ip WHERE ip <> '';
      CREATE INDEX login_logs_guess_account_idx ON login_logs (surface, account, address_key, created_at)
        WHERE reason IN ('bad_password', 'unknown_account', 'pending');
      CREATE INDEX login_logs_guess_address_idx ON login_logs (address_key, created_at)
        WHERE reason IN ('bad_password', 'unknown_account', 'pending');
      CREATE INDEX login_logs_subject_idx ON login_logs (surface, subject_id, id) WHERE subject_id IS NOT NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS login_logs_subject_idx;
      DROP INDEX IF EXISTS login_logs_guess_address_idx;
      DROP INDEX IF EXISTS login_logs_guess_account_idx;
      ALTER TABLE login_logs DROP COLUMN address_key;
    `);
  },
};
