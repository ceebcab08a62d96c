import { UpstreamError } from '../client/upstream-error.js';
import type { FinanceAction } from './action-types.js';
import { readInvoiceState } from './check-order.js';
import { requirePositiveInt } from './payload.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asRecord } from '../read.js';

const PAID_STATUS = 1001;

/**
 * `POST /pay?action=billing&pay=true` settles the upstream bill from the supplier balance.
 * 1001 means paid. A plain 200 may mean only part was applied, so the bill is checked
 * (`/check_order`). Safe to repeat: a paid bill answers 1001 again and nothing moves.
 * `amount` is the bill's total as the answer carries it (two digits), null when it does not.
 */
export const payInvoice: FinanceAction = async ({ input, session }) => {
  const invoiceId = requirePositiveInt(input.payload, 'invoice_id');
  const envelope = await session.call({ method: 'POST', path: '/pay', query: { action: 'billing', pay: 'true' }, form: { invoiceid: invoiceId }, commits: true });
  if (envelope.status === PAID_STATUS) {
    const amount = parseUpstreamAmount(asRecord(envelope.data)?.['total']);
    return { message: '上游账单已支付', data: { invoice_id: invoiceId, paid: true, status: 'paid', checked: false, amount } };
  }
  const invoice = await readInvoiceState(session, invoiceId).catch((err: unknown) => {
    // The payment was answered but its effect could not be confirmed.
    throw err instanceof UpstreamError ? err.reclassify('ambiguous', '上游已受理支付但未能确认账单状态，请先核对账单') : err;
  });
  return {
    message: invoice.paid ? '上游账单已支付' : '上游账单尚未付清',
    data: { invoice_id: invoiceId, paid: invoice.paid, status: invoice.status, checked: true, amount: invoice.total },
  };
};
