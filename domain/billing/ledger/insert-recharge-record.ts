import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import type { RechargeEntryType, RechargeScene } from '../../../db/models/billing.js';
import { sqlOne, type Tx } from '../../../db/sql.js';

export type RechargeRecordInput = {
  userId: number;
  invoiceId: number;
  orderId: number | null;
  paymentId: number | null;
  accountTransactionId: number | null;
  scene: Exclude<RechargeScene, 'refund'>;
  entryType: RechargeEntryType;
  amount: string;
  remark: string;
  reason?: string;
  audit: Audit;
};

/** An incoming recharge record (direction `in`); offsets are written by `insertOffsetRecord`. */
export async function insertRechargeRecord(deps: DomainDeps, input: RechargeRecordInput, transaction: Tx): Promise<number> {
  const { operator, traceId } = input.audit;
  const row = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO recharge_records (user_id, order_id, invoice_id, payment_id, account_transaction_id, scene, direction, entry_type,
        amount, remark, reason, operator_type, operator_id, operator_name, trace_id)
     VALUES ($1, $2, $3, $4, $5, $6, 'in', $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
    [
      input.userId,
      input.orderId,
      input.invoiceId,
      input.paymentId,
      input.accountTransactionId,
      input.scene,
      input.entryType,
      input.amount,
      input.remark.slice(0, 255),
      (input.reason ?? '').slice(0, 255),
      operator.type,
      operator.id,
      operator.name,
      traceId,
    ],
    transaction,
  );
  if (!row) throw new Error('recharge record not written');
  return row.id;
}
