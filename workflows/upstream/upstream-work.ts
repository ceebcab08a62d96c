import type { Actor } from '../../lib/actor.js';
import type { QueryDefinition, SearchAttributeUpdatePair, UpdateDefinition } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { condition, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SearchAttr } from '../search-attributes.js';
import { adminDecisions } from './admin-decision.js';
import {
  AWAITING_UPSTREAM_FUNDS,
  type EnteringStage,
  failureOf,
  type FundsCheck,
  SUPPLIER_BALANCE_INSUFFICIENT,
  UPSTREAM_FAILURES,
  UPSTREAM_FUNDS_TIMEOUT,
  type UpstreamDecision,
  type UpstreamFailure,
  type UpstreamState,
} from './contract.js';

/**
 * Seconds between two funds checks while work waits for the supplier balance: backing off to
 * 30 s, so work goes on within about half a minute of a top-up (issue #29: within a minute).
 */
export const FUNDS_POLL_SECONDS = [5, 10, 20, 30] as const;

/** The patch of the funds wait before upstream payments (histories recorded before it pay at once). */
export const FUNDS_WAIT_PATCH = 'upstream-funds-wait';

/** The failure the funds wait ends with when an admin cancels meanwhile (the cancel path takes the decision). */
const CANCELLED_WHILE_FUNDING = 'UpstreamFundsWaitCancelled';

/** A payment the upstream refused because the supplier balance was too low (the read raced another purchase). */
function refusedForFunds(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return false;
  const details = (cause.details?.[0] ?? {}) as { code?: unknown };
  return details.code === SUPPLIER_BALANCE_INSUFFICIENT;
}

type SearchAttributes = SearchAttributeUpdatePair[];

/** The supplier's search attributes of prepared work; none for work without an upstream. */
export function supplierAttributes(upstream: { supplierCode: string; providerKey: string } | null): SearchAttributes {
  if (!upstream) return [];
  return [
    { key: SearchAttr.SupplierCode, value: upstream.supplierCode },
    { key: SearchAttr.ProviderKey, value: upstream.providerKey },
  ];
}

/** What one run of the work ended with: its result, or the failure it parks on. */
export type Fulfilled<Stage extends string, Result> = { result: Result } | { failure: UpstreamFailure<Stage> };

/** The steps only one kind of upstream work knows; `upstreamWork(...).run` sequences them. */
export type UpstreamWorkSteps<Stage extends string, Prepared extends { kind: string }, Result> = {
  /**
   * Reads (and claims) the work, after entering `prepare`; after an admin retry, with the admin.
   * `entering`: the stage the activity records first (folded stages only; see `enterWith`).
   */
  prepare: (retriedBy: Actor | null, entering?: EnteringStage) => Promise<Prepared>;
  /** The result of work found already finished (nothing is done again). */
  finished: (prepared: Extract<Prepared, { kind: 'finished' }>) => Result;
  /** The search attributes of prepared work. */
  attributes: (prepared: Exclude<Prepared, { kind: 'finished' }>) => SearchAttributes;
  /** One run of the work. */
  fulfil: (prepared: Exclude<Prepared, { kind: 'finished' }>) => Promise<Fulfilled<Stage, Result>>;
  /** The activity that puts the failure on the row and in the history. */
  markFailed: (failure: UpstreamFailure<Stage>) => Promise<unknown>;
  /** The activity that carries out an admin's cancel (refund); a refusal goes back to the admin. */
  cancel: (decision: UpstreamDecision) => Promise<unknown>;
  /** The result of cancelled work. */
  cancelled: () => Result;
};

/**
 * The shape every upstream workflow shares: prepare, run, and on a failure retrying cannot fix
 * park in `awaiting_admin` until an admin retries (prepare again with the same references, so
 * nothing is bought twice) or cancels (`cancelling`, then `cancelled`; a refused cancellation
 * goes back to the admin with its reason without buying again). Never a silent stop. Every
 * stage is the `BusinessStage` search attribute and, through `recordStage` (an activity), a row
 * of the work's history; with `foldStages`, a stage followed at once by its step's activity is
 * recorded by that activity instead (`enterWith`): one local activity less per stage.
 */
export function upstreamWork<Stage extends string, S extends UpstreamState<Stage>>(options: {
  state: S;
  decide: UpdateDefinition<S, [UpstreamDecision]>;
  query: QueryDefinition<S>;
  recordStage: (stage: Stage) => Promise<unknown>;
  /**
   * The step activities record their own stage (`enterWith` hands them `entering`). Decided once
   * per run by the workflow, behind its own `patched()`: histories recorded before, and kinds
   * that do not pass it (service orders), record each stage with `recordStage` first.
   */
  foldStages?: boolean;
}) {
  const { state } = options;
  const decisions = adminDecisions<Stage, S>({ decide: options.decide, state: options.query }, state);

  /** The stage on the state and the search attribute, without a history row. */
  const settle = (stage: Stage) => {
    state.stage = stage;
    upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: stage }]);
  };
  /** The stage on the state, the search attribute, the row and the history. */
  const enter = async (stage: Stage) => {
    settle(stage);
    await options.recordStage(stage);
  };
  /**
   * Enters `stage` and runs its step: the stage on the state and the search attribute as
   * `settle` does, then, folded, the step's activity with `entering` (it records the stage
   * itself, first, once); otherwise `recordStage` as `enter` does and the step with `entering`
   * undefined (the command sequence of before).
   */
  const enterWith = async <T>(stage: Stage, step: (entering: EnteringStage | undefined) => Promise<T>): Promise<T> => {
    if (!options.foldStages) {
      await enter(stage);
      return step(undefined);
    }
    settle(stage);
    return step({ stage, workflowId: workflowInfo().workflowId });
  };

  /**
   * Waits in `awaiting_upstream_funds` until the funds check answers enough: checks with back-off
   * (FUNDS_POLL_SECONDS; `polls` carries it across the waits of one payment, so a payment the
   * upstream keeps refusing is tried no more often than that), racing an admin's cancel (then it
   * throws the failure the cancel path takes). `refused`: the upstream refused the payment for
   * funds; the wait starts at once.
   */
  const waitForFunds = async (funds: (refused: boolean) => Promise<FundsCheck>, refused: boolean, polls: { n: number }): Promise<void> => {
    const first = refused ? null : await funds(false);
    if (first?.enough) return;
    await enter(AWAITING_UPSTREAM_FUNDS as Stage);
    if (refused) await funds(true);
    // Work that may fail over gives up after the check's `failoverAfterSeconds` (never after a payment refused for funds: one was sent).
    const limit = first?.failoverAfterSeconds;
    const giveUpAt = limit !== undefined ? Date.now() + limit * 1000 : null;
    for (;;) {
      const seconds = FUNDS_POLL_SECONDS[Math.min(polls.n, FUNDS_POLL_SECONDS.length - 1)] ?? 30;
      polls.n += 1;
      if (await condition(() => decisions.pending(), `${seconds}s`)) break;
      const enough = (await funds(false)).enough;
      if (decisions.pending()) break;
      if (enough) return;
      if (giveUpAt !== null && limit !== undefined && Date.now() >= giveUpAt) {
        throw ApplicationFailure.nonRetryable(`供应商余额不足，等待充值已超过 ${Math.round(limit / 60)} 分钟`, UPSTREAM_FAILURES.permanent, {
          code: UPSTREAM_FUNDS_TIMEOUT,
        });
      }
    }
    throw ApplicationFailure.nonRetryable('管理员在等待上游余额期间取消', CANCELLED_WHILE_FUNDING, { code: 'cancelled_awaiting_funds' });
  };

  /**
   * Pays the upstream: the stage every kind enters before its payment, then the payment. With a
   * funds check (`funds`, an activity comparing the supplier balance with the bill; issue #29)
   * and behind `patched('upstream-funds-wait')`, a balance too low first waits in
   * `awaiting_upstream_funds` (./contract.ts `UPSTREAM_STAGES.pay`) until it is topped up, and a
   * payment the upstream refuses for funds waits the same way and pays again (the pay step
   * reconciles before it sends again: nothing is paid twice). Histories recorded before the
   * patch pay at once. `pay` is the payment's step: it gets `entering` as `enterWith` gives it.
   */
  const payUpstream = async <T>(pay: (entering: EnteringStage | undefined) => Promise<T>, funds?: (refused: boolean) => Promise<FundsCheck>): Promise<T> => {
    if (!funds || !patched(FUNDS_WAIT_PATCH)) return enterWith('upstream_pay' as Stage, pay);
    let refused = false;
    const polls = { n: 0 };
    for (;;) {
      await waitForFunds(funds, refused, polls);
      try {
        return await enterWith('upstream_pay' as Stage, pay);
      } catch (err) {
        if (!refusedForFunds(err)) throw err;
        refused = true;
      }
    }
  };

  /**
   * Runs steps of the work; a step failure (retries spent, or retrying cannot fix it) becomes the
   * failure to park on, at the stage the work had reached. Anything else is thrown.
   */
  const failureIn = async (steps: () => Promise<void>): Promise<UpstreamFailure<Stage> | null> => {
    try {
      await steps();
      return null;
    } catch (err) {
      const failure = failureOf(err, state.stage);
      if (failure) return failure;
      throw err;
    }
  };

  async function run<Prepared extends { kind: string }, Result>(steps: UpstreamWorkSteps<Stage, Prepared, Result>): Promise<Result> {
    const isFinished = (p: Prepared): p is Extract<Prepared, { kind: 'finished' }> => p.kind === 'finished';
    let prepared = await enterWith('prepare' as Stage, (entering) => steps.prepare(null, entering));
    let carried: UpstreamFailure<Stage> | null = null;
    for (;;) {
      if (isFinished(prepared)) return steps.finished(prepared);
      const open = prepared as Exclude<Prepared, { kind: 'finished' }>;
      upsertSearchAttributes(steps.attributes(open));
      let failure = carried;
      carried = null;
      if (!failure) {
        state.runs += 1;
        const outcome = await steps.fulfil(open);
        if ('result' in outcome) return outcome.result;
        failure = outcome.failure;
      }
      const stopped = failure;

      // A cancel taken while waiting for upstream funds is decided already: no failure to park on.
      const chosen = decisions.pending() ? decisions.take() : await decisions.awaitDecision(stopped, () => steps.markFailed(stopped));
      if (chosen.action === 'cancel') {
        await enter('cancelling' as Stage);
        try {
          await steps.cancel(chosen);
        } catch (err) {
          carried = failureOf(err, 'cancelling' as Stage);
          if (!carried) throw err;
          continue;
        }
        settle('cancelled' as Stage);
        return steps.cancelled();
      }
      state.failure = null;
      prepared = await enterWith('prepare' as Stage, (entering) => steps.prepare(chosen.decider, entering));
    }
  }

  return { enter, enterWith, settle, failureIn, payUpstream, run };
}
