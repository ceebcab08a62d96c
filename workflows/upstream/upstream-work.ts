import type { Actor } from '../../lib/actor.js';
import type { QueryDefinition, SearchAttributeUpdatePair, UpdateDefinition } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttr } from '../search-attributes.js';
import { adminDecisions } from './admin-decision.js';
import { failureOf, type UpstreamDecision, type UpstreamFailure, type UpstreamState } from './contract.js';

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
  /** Reads (and claims) the work, after entering `prepare`; after an admin retry, with the admin. */
  prepare: (retriedBy: Actor | null) => Promise<Prepared>;
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
 * of the work's history.
 */
export function upstreamWork<Stage extends string, S extends UpstreamState<Stage>>(options: {
  state: S;
  decide: UpdateDefinition<S, [UpstreamDecision]>;
  query: QueryDefinition<S>;
  recordStage: (stage: Stage) => Promise<unknown>;
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
   * Pays the upstream: the stage every kind enters before its payment, then the payment. A wait
   * before paying that all kinds share (issue #29: `awaiting_upstream_funds`) goes here, behind
   * `patched()`, with its stage in `UPSTREAM_STAGES.pay` (./contract.ts).
   */
  const payUpstream = async <T>(pay: () => Promise<T>): Promise<T> => {
    await enter('upstream_pay' as Stage);
    return pay();
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
    await enter('prepare' as Stage);
    let prepared = await steps.prepare(null);
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

      const chosen = await decisions.awaitDecision(stopped, () => steps.markFailed(stopped));
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
      await enter('prepare' as Stage);
      prepared = await steps.prepare(chosen.decider);
    }
  }

  return { enter, settle, failureIn, payUpstream, run };
}
