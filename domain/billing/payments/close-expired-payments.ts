import type { DomainDeps } from '../../deps.js';
import { systemAudit } from '../audit.js';
import { sqlRows } from '../../../db/sql.js';
import { closeQrPayment } from './close-qr-payment.js';

export type ExpiredPaymentsSummary = { found: number; closed: number; paid: number; failed: number };

/**
 * Backstop for QR payments whose workflow never ran to its end (never started after a crash,
 * terminated by an operator): pending payments expired at least `graceSeconds` ago are closed
 * exactly as the workflow would (gateway close, or settled if it turns out paid; balance part
 * reversed). Idempotent.
 */
export async function closeExpiredPayments(deps: DomainDeps, options: { graceSeconds?: number; limit?: number; traceId?: string } = {}): Promise<ExpiredPaymentsSummary> {
  const rows = await sqlRows<{ payment_no: string }>(
    deps,
    `SELECT payment_no FROM payments WHERE status = 'pending' AND expires_at < now() - make_interval(secs => $1) ORDER BY expires_at LIMIT $2`,
    [options.graceSeconds ?? 600, options.limit ?? 200],
  );
  const summary: ExpiredPaymentsSummary = { found: rows.length, closed: 0, paid: 0, failed: 0 };
  for (const { payment_no: paymentNo } of rows) {
    try {
      const { state } = await closeQrPayment(deps, paymentNo, systemAudit(options.traceId ?? 'task:billing.close_expired_payments'));
      if (state === 'closed') summary.closed += 1;
      else if (state === 'paid') summary.paid += 1;
    } catch (err) {
      summary.failed += 1;
      deps.logger.warn({ err, paymentNo }, 'expired payment not closed');
    }
  }
  return summary;
}
