import type { DomainDeps } from '../../deps.js';
import { sqlOne } from '../../../db/sql.js';

export type RefundDocumentIds = { refund_id: number; refund_invoice_id: number | null; recharge_record_id: number | null };

/** The documents a refund produced: its red-entry invoice and its offset recharge record (null for a balance-paid refund). */
export async function refundDocuments(deps: DomainDeps, refundId: number): Promise<RefundDocumentIds> {
  const row = await sqlOne<RefundDocumentIds>(
    deps,
    `SELECT r.id AS refund_id, r.refund_invoice_id,
            (SELECT id FROM recharge_records WHERE refund_id = r.id ORDER BY id LIMIT 1) AS recharge_record_id
       FROM refunds r WHERE r.id = $1`,
    [refundId],
  );
  return row ?? { refund_id: refundId, refund_invoice_id: null, recharge_record_id: null };
}
