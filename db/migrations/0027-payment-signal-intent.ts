import { extendCheck } from './extend-check.js';
import type { Migration } from './types.js';

/**
 * One owner for fulfilment (docs/fulfilment.md "Durability"): a QR notification's settlement no
 * longer signals the payment workflow from the request; it records the signal as an outbox row of
 * the new kind `signal_payment`, which the relay performs like the fulfilment row.
 */
export const migration0027PaymentSignalIntent: Migration = {
  name: '0027-payment-signal-intent',
  async up({ context: sequelize }) {
    await sequelize.query(extendCheck('outbox', 'kind', ['signal_payment']));
  },
  async down({ context: sequelize }) {
    // Rows of the kind are plain promises to look sooner: dropping them loses nothing.
    await sequelize.query(`DELETE FROM outbox WHERE kind = 'signal_payment'`);
  },
};
