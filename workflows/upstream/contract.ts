import type { Actor } from '../../lib/actor.js';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

/**
 * What every piece of upstream work shares: provisioning (`provision:<service_id>`), renewals
 * (`renew:<invoice_no>`), traffic packages (`traffic:<invoice_no>`) and upgrades
 * (`upgrade:<invoice_no>`, a service order kind: same refusal type and activity mode). Each
 * buys upstream exactly once (domain/suppliers/send-once.ts), classifies its failures the same
 * way (activities/classify.ts), parks what retrying cannot fix until an admin decides
 * (./admin-decision.ts) and runs its activities as chosen in ./activities.ts.
 */

/**
 * ApplicationFailure types of upstream activities. The strings are in recorded workflow
 * histories: never rename them.
 */
export const UPSTREAM_FAILURES = {
  /** Retrying will not help (out of stock, supplier balance too low, product gone, host not renewable, …). */
  permanent: 'UpstreamPermanent',
  /** Nothing happened or a read failed: retried with backoff. */
  transient: 'UpstreamTransient',
  /** It may have happened upstream: the step reconciles before it acts again. */
  ambiguous: 'UpstreamAmbiguous',
} as const;

/**
 * Our own rules refused (a refund not allowed, the service ended, …): not retried. One type per
 * kind of work, as the histories recorded them.
 */
export const REFUSED_FAILURES = {
  provision: 'ProvisioningRefused',
  serviceOrder: 'ServiceOrderRefused',
} as const;

/** The kinds of upstream work, each with its own workflow(s) and refusal type. */
export type UpstreamWork = keyof typeof REFUSED_FAILURES;

/** Failure types retrying does not change: shown to the admin as they are. */
const FINAL_TYPES: readonly string[] = [UPSTREAM_FAILURES.permanent, ...Object.values(REFUSED_FAILURES)];

/**
 * The stages every kind of upstream work has, around its own steps: `upstreamStages(buy,
 * finish)` lists a kind's stages as `start`, its buying steps, `pay`, its finishing steps, then
 * `end`. A stage all kinds share is added here once (a wait before the upstream payment goes
 * into `pay`, before `upstream_pay`, and its step into `payUpstream` of ./upstream-work.ts); the
 * kinds' stage lists, the admin list filters and the kernel (domain/upstream-work/) follow.
 */
export const UPSTREAM_STAGES = {
  start: ['queued', 'prepare'],
  pay: ['awaiting_upstream_funds', 'upstream_pay'],
  end: ['done', 'awaiting_admin', 'cancelling', 'cancelled'],
} as const;

/** A kind's stages: the shared ones around its own buying and finishing steps. */
export function upstreamStages<const Buy extends readonly string[], const Finish extends readonly string[]>(buy: Buy, finish: Finish) {
  return [...UPSTREAM_STAGES.start, ...buy, ...UPSTREAM_STAGES.pay, ...finish, ...UPSTREAM_STAGES.end] as const;
}

/** The stage of upstream work that waits for an admin's decision. */
export const AWAITING_ADMIN = 'awaiting_admin' satisfies (typeof UPSTREAM_STAGES.end)[number];

/**
 * The stage of upstream work waiting for the supplier balance to cover its upstream bill
 * (issue #29): it resumes by itself once the balance is topped up; an admin may cancel it.
 */
export const AWAITING_UPSTREAM_FUNDS = 'awaiting_upstream_funds' satisfies (typeof UPSTREAM_STAGES.pay)[number];

/**
 * The code of a funds wait that outlasted the product's failover setting (issue #38): the
 * supplier is failed over like one out of stock (domain/upstream-work/provision/failover.ts).
 */
export const UPSTREAM_FUNDS_TIMEOUT = 'upstream_funds_timeout';

/** The code of the plugin's "supplier balance too low" answer (a payment refused for funds). */
export const SUPPLIER_BALANCE_INSUFFICIENT = 'supplier_balance_insufficient';

/** What the funds check before an upstream payment answers (`checkProvisioningFunds`, `checkServiceOrderFunds`). */
export type FundsCheck = {
  /** False: the balance read is below the bill; the work waits. True also when nothing could be compared (amount or balance unknown). */
  enough: boolean;
  balance: string | null;
  amount: string | null;
  /**
   * Work that may fail over (issue #38) and has another binding left: after waiting this many
   * seconds for funds it stops with `UPSTREAM_FUNDS_TIMEOUT`. Absent: it waits for the top-up
   * (and in every history recorded before).
   */
  failoverAfterSeconds?: number;
};

/** An admin's decision on upstream work waiting for one (`provision.decide`, `service-order.decide`). */
export type UpstreamDecision = { action: 'retry' | 'cancel'; decider: Actor; reason: string };

/**
 * The stage upstream work enters when it takes an admin's decision (the update answers the state
 * as it was, still `awaiting_admin`): what the decide routes answer as the new stage.
 */
export const STAGE_AFTER_DECISION = { retry: 'prepare', cancel: 'cancelling' } as const satisfies Record<UpstreamDecision['action'], string>;

/**
 * The stage a step activity records itself before its work, when the workflow folds the stage
 * record into the step (`foldStages` of `upstreamWork`, ./upstream-work.ts): its row moves and its
 * `started` history row is written only when the stage actually changes, so a retried attempt
 * writes nothing twice (`enterWorkStageOnce`, domain/upstream-work/record.ts).
 */
export type EnteringStage = { stage: string; workflowId: string };

/** Why upstream work stopped: where, a code, and the Chinese reason the admin reads. */
export type UpstreamFailure<Stage extends string = string> = { stage: Stage; code: string; reason: string };

/** What every upstream workflow's state query answers (a workflow may add its own fields). */
export type UpstreamState<Stage extends string> = {
  stage: Stage;
  /** Runs of the upstream steps: 1, then one more per admin retry. */
  runs: number;
  failure: UpstreamFailure<Stage> | null;
};

/**
 * The code and Chinese reason of a failed step, from the end of the cause chain: an activity's
 * failure (local activities' may arrive unwrapped) or one the workflow raised itself. A
 * transient or ambiguous one reaching the workflow means its retries ran out. Null: not a step
 * failure (the caller rethrows it).
 */
export function failureOf<Stage extends string>(err: unknown, stage: Stage): UpstreamFailure<Stage> | null {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as { code?: unknown };
    const code = typeof details.code === 'string' || typeof details.code === 'number' ? String(details.code) : (cause.type ?? 'failed');
    const exhausted = !FINAL_TYPES.includes(cause.type ?? '');
    return { stage, code, reason: exhausted ? `${cause.message}（已重试多次）` : cause.message };
  }
  if (err instanceof ActivityFailure) return { stage, code: 'failed', reason: '上游步骤多次失败，请检查供应商状态' };
  return null;
}
