import type { ServiceOrderFailure } from '../../../workflows/service-order/contract.js';
import type { DomainDeps } from '../../deps.js';
import { type FailedAttempt, failedAttemptEntry } from '../../suppliers/step-journal.js';
import { loadServiceOrder, orderJournal, recordOrderEvent } from './order-record.js';

const STAGE_MESSAGES: Record<string, string> = {
  prepare: '准备处理',
  upstream_renew: '向上游申请续费账单',
  upstream_buy: '向上游申请流量包账单',
  upstream_upgrade: '向上游申请配置变更账单',
  upstream_pay: '支付上游账单',
  complete: '完成本地处理',
  cancelling: '取消并退款',
};

/** Where an order stands, on its row (what the admin list filters on) and in the service's history. */
export async function enterServiceOrderStage(deps: DomainDeps, input: { invoiceId: number; stage: string; workflowId: string }): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const order = await loadServiceOrder(deps, input.invoiceId, transaction);
    await order.update({ stage: input.stage, stage_changed_at: new Date() }, { transaction });
    await recordOrderEvent(
      deps,
      order,
      {
        stage: input.stage,
        status: 'started',
        message: STAGE_MESSAGES[input.stage] ?? '',
        workflowId: input.workflowId,
      },
      transaction,
    );
  });
}

/** The order stopped on a failure retrying cannot fix: `awaiting_admin` with the Chinese reason, until an admin decides. */
export async function markServiceOrderFailed(deps: DomainDeps, input: { invoiceId: number; failure: ServiceOrderFailure; workflowId: string }): Promise<void> {
  const { failure } = input;
  await deps.db.sequelize.transaction(async (transaction) => {
    const order = await loadServiceOrder(deps, input.invoiceId, transaction);
    if (order.status === 'succeeded' || order.status === 'cancelled') return;
    await order.update(
      {
        status: 'awaiting_admin',
        stage: 'awaiting_admin',
        stage_changed_at: new Date(),
        failure_code: failure.code.slice(0, 64),
        failure_reason: failure.reason.slice(0, 255),
      },
      { transaction },
    );
    await recordOrderEvent(
      deps,
      order,
      {
        stage: failure.stage,
        status: 'failed',
        message: failure.reason,
        detail: { code: failure.code },
        workflowId: input.workflowId,
      },
      transaction,
    );
  });
}

/** A failed attempt of an upstream step, as a row of the order's history at the stage it is in. */
export async function recordServiceOrderAttempt(deps: DomainDeps, input: { invoiceId: number; workflowId: string }, attempt: FailedAttempt): Promise<void> {
  const order = await loadServiceOrder(deps, input.invoiceId);
  await orderJournal(deps, order, input.workflowId)(failedAttemptEntry(attempt));
}
