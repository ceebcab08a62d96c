import type { ServiceStatus } from '../../db/models/service.js';
import { AppError } from '../../lib/errors.js';
import type { PluginInvocation } from '../../plugins/runtime/invoke.js';
import { inTransaction, sqlOne, type Tx } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { invokeSupplierPlugin } from '../suppliers/supplier-plugin.js';
import { RENEWAL_PAID_NOT_APPLIED } from './renewal-state.js';

export type StateTransition = 'suspend' | 'unsuspend' | 'terminate';

/**
 * `changed`: the upstream confirmed (host detail) and the service changed; `changed_locally`: no
 * upstream host, changed here only; `skipped`: no longer eligible or locked by another writer;
 * `refused`: the upstream refused for good; `failed`: the upstream could not be reached or
 * answered an error (retried next run); `unconfirmed`: accepted upstream but the host detail does
 * not show the new state yet (confirmed next run). The last three leave the service as it was.
 */
export type TransitionOutcome = 'changed' | 'changed_locally' | 'skipped' | 'refused' | 'failed' | 'unconfirmed';

/** The locked service as the eligibility checks see it. */
export type LockedService = {
  id: number;
  status: ServiceStatus;
  next_due_at: Date | null;
  suspended_at: Date | null;
  suspend_reason: string | null;
  renewal_pending: boolean;
};

type Definition = {
  label: string;
  /** Host statuses (as `upstream.host_detail` normalises them) that confirm the transition. */
  confirmedBy: readonly string[];
  /** Sets the local state; `$2` is the confirmed upstream status, or null without an upstream host. */
  apply: string;
  succeeded: string;
};

const DEFINITIONS: Record<StateTransition, Definition> = {
  suspend: {
    label: '暂停',
    confirmedBy: ['suspended'],
    apply: `status = 'suspended', suspended_at = now(), suspend_reason = 'overdue'`,
    succeeded: '服务已到期未续费，已暂停',
  },
  unsuspend: {
    label: '解除暂停',
    confirmedBy: ['active'],
    apply: `status = 'active', suspended_at = NULL, suspend_reason = NULL`,
    succeeded: '续费已完成，服务已恢复',
  },
  terminate: {
    label: '终止',
    confirmedBy: ['terminated', 'cancelled', 'deleted'],
    apply: `status = 'terminated', terminated_at = now(), suspend_reason = NULL`,
    succeeded: '服务暂停期满仍未续费，已终止',
  },
};

type Binding = { supplier_id: number; upstream_host_id: string | null };

type Context = { serviceId: number; transition: StateTransition; taskRunId: number | null; tx: Tx };

async function recordEvent(deps: DomainDeps, ctx: Context, status: 'succeeded' | 'failed', message: string, detail: Record<string, unknown>) {
  await sqlOne(
    deps,
    `INSERT INTO service_events (service_id, kind, stage, status, message, detail, operator_type)
     VALUES ($1, 'lifecycle', $2, $3, $4, $5, 'system') RETURNING id`,
    [ctx.serviceId, ctx.transition, status, message.slice(0, 255), JSON.stringify({ ...detail, task_run_id: ctx.taskRunId })],
    ctx.tx,
  );
}

async function applyLocally(deps: DomainDeps, ctx: Context, upstream: { status: string | null; hostId: number | null; reconciled: boolean }) {
  const definition = DEFINITIONS[ctx.transition];
  await sqlOne(
    deps,
    `UPDATE services SET ${definition.apply},
        upstream_status = COALESCE($2::varchar, upstream_status),
        upstream_synced_at = CASE WHEN $2::varchar IS NULL THEN upstream_synced_at ELSE now() END,
        updated_at = now()
      WHERE id = $1 RETURNING id`,
    [ctx.serviceId, upstream.status],
    ctx.tx,
  );
  const where = upstream.hostId === null ? '（未绑定上游主机，仅本地变更）' : '（上游已确认）';
  await recordEvent(deps, ctx, 'succeeded', `${definition.succeeded}${where}`, {
    upstream_host_id: upstream.hostId,
    upstream_status: upstream.status,
    reconciled: upstream.reconciled,
  });
}

function errorCode(result: PluginInvocation): string | null {
  const code = result.data['error_code'];
  return typeof code === 'string' ? code : null;
}

/** The host's status from `upstream.host_detail`, `gone` when the upstream no longer knows it, or the failed call. */
async function readHostStatus(deps: DomainDeps, supplierId: number, hostId: number): Promise<{ status: string } | { failed: PluginInvocation }> {
  const result = await invokeSupplierPlugin(deps, supplierId, { action: 'upstream.host_detail', payload: { host_id: hostId } });
  if (!result.success) return errorCode(result) === 'not_found' ? { status: 'gone' } : { failed: result };
  const host = result.data['host'];
  const status = host && typeof host === 'object' ? (host as Record<string, unknown>)['status'] : null;
  return { status: typeof status === 'string' ? status : 'unknown' };
}

function confirms(transition: StateTransition, status: string): boolean {
  // A host the upstream no longer knows is as terminated as it gets.
  return DEFINITIONS[transition].confirmedBy.includes(status) || (transition === 'terminate' && status === 'gone');
}

async function failUpstream(deps: DomainDeps, ctx: Context, step: string, result: PluginInvocation, hostId: number): Promise<TransitionOutcome> {
  const definition = DEFINITIONS[ctx.transition];
  const permanent = result.data['error_kind'] === 'permanent';
  await recordEvent(deps, ctx, 'failed', `${definition.label}失败（${step}）：${result.message}；服务状态未变更，将在下次运行时重试`, {
    upstream_host_id: hostId,
    error_code: errorCode(result),
    error_kind: typeof result.data['error_kind'] === 'string' ? result.data['error_kind'] : null,
  });
  return permanent ? 'refused' : 'failed';
}

/**
 * Through the upstream, with the local state changed only when the upstream confirmed: read the
 * host (already in the target state: just record it), ask for the change with
 * `upstream.host_action`, read the host again, and only when its status shows the change update
 * the service and record a `lifecycle` event. Any failure records a failed event and leaves the
 * service as it was, to be retried by the next run.
 */
async function changeThroughUpstream(deps: DomainDeps, ctx: Context, binding: Binding & { upstream_host_id: string }): Promise<TransitionOutcome> {
  const hostId = Number(binding.upstream_host_id);
  const before = await readHostStatus(deps, binding.supplier_id, hostId);
  if ('failed' in before) return failUpstream(deps, ctx, '查询上游主机', before.failed, hostId);
  if (confirms(ctx.transition, before.status)) {
    await applyLocally(deps, ctx, { status: before.status, hostId, reconciled: true });
    return 'changed';
  }
  const action = await invokeSupplierPlugin(deps, binding.supplier_id, { action: 'upstream.host_action', payload: { host_id: hostId, action: ctx.transition } });
  if (!action.success) return failUpstream(deps, ctx, '上游操作', action, hostId);
  const after = await readHostStatus(deps, binding.supplier_id, hostId);
  if ('failed' in after) return failUpstream(deps, ctx, '确认上游状态', after.failed, hostId);
  if (!confirms(ctx.transition, after.status)) {
    await recordEvent(deps, ctx, 'failed', `上游已受理${DEFINITIONS[ctx.transition].label}，但主机状态尚未变更（上游状态：${after.status}）；服务状态未变更，将在下次运行时确认`, {
      upstream_host_id: hostId,
      upstream_status: after.status,
    });
    return 'unconfirmed';
  }
  await applyLocally(deps, ctx, { status: after.status, hostId, reconciled: false });
  return 'changed';
}

/**
 * Suspends, unsuspends or terminates one service. The service row is locked (SKIP LOCKED: a
 * service another writer holds is left for the next run) and `eligible` is checked again under
 * the lock, so a renewal paid meanwhile wins. Services without an upstream host change locally.
 */
export async function changeServiceState(
  deps: DomainDeps,
  input: { serviceId: number; transition: StateTransition; taskRunId: number | null; eligible: (service: LockedService) => boolean },
): Promise<TransitionOutcome> {
  return inTransaction(deps, async (tx) => {
    const service = await sqlOne<LockedService>(
      deps,
      `SELECT s.id, s.status, s.next_due_at, s.suspended_at, s.suspend_reason, ${RENEWAL_PAID_NOT_APPLIED} AS renewal_pending
         FROM services s WHERE s.id = $1 FOR UPDATE OF s SKIP LOCKED`,
      [input.serviceId],
      tx,
    );
    if (!service || !input.eligible(service)) return 'skipped';
    const ctx: Context = { serviceId: input.serviceId, transition: input.transition, taskRunId: input.taskRunId, tx };
    const binding = await sqlOne<Binding>(deps, 'SELECT supplier_id, upstream_host_id FROM service_upstream_bindings WHERE service_id = $1', [input.serviceId], tx);
    if (!binding || binding.upstream_host_id === null) {
      await applyLocally(deps, ctx, { status: null, hostId: null, reconciled: false });
      return 'changed_locally';
    }
    try {
      return await changeThroughUpstream(deps, ctx, { ...binding, upstream_host_id: binding.upstream_host_id });
    } catch (error) {
      // The supplier lost its plugin or was deleted: nothing was sent; say so and retry next run.
      if (!(error instanceof AppError)) throw error;
      await recordEvent(deps, ctx, 'failed', `${DEFINITIONS[input.transition].label}失败：${error.message}；服务状态未变更，将在下次运行时重试`, {
        upstream_host_id: Number(binding.upstream_host_id),
      });
      return 'failed';
    }
  });
}
