import { condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { QueryDefinition, UpdateDefinition } from '@temporalio/common';
import { SearchAttr } from '../search-attributes.js';
import { AWAITING_ADMIN as AWAITING, AWAITING_UPSTREAM_FUNDS, type UpstreamDecision, type UpstreamFailure, type UpstreamState } from './contract.js';

/**
 * The state query and the decide update of one upstream workflow, and the one way it waits for
 * an admin. The update is accepted only while the work waits and no decision is pending (the
 * validator runs before anything is written to the history, so a refused update leaves none):
 * waiting for an admin, either decision; waiting for upstream funds, a cancel only (the wait
 * itself ends when the balance is topped up; `pending`/`take` let it end on the cancel).
 */
export function adminDecisions<Stage extends string, S extends UpstreamState<Stage>>(
  defs: { decide: UpdateDefinition<S, [UpstreamDecision]>; state: QueryDefinition<S> },
  state: S,
) {
  let decision: UpstreamDecision | null = null;
  setHandler(defs.state, () => state);
  setHandler(
    defs.decide,
    (d) => {
      decision = d;
      return state;
    },
    {
      validator: (d) => {
        const cancelWhileFunding = state.stage === AWAITING_UPSTREAM_FUNDS && d.action === 'cancel';
        if ((state.stage !== AWAITING && !cancelWhileFunding) || decision !== null) throw new Error('only work awaiting an admin decision can be retried or cancelled');
        if (d.action !== 'retry' && d.action !== 'cancel') throw new Error('action must be retry or cancel');
      },
    },
  );

  return {
    /** True when a decision arrived that no wait took yet (a cancel while waiting for upstream funds). */
    pending: () => decision !== null,
    /** The decision that arrived, taken (call only when `pending()`). */
    take(): UpstreamDecision {
      const chosen = decision as UpstreamDecision | null;
      decision = null;
      if (!chosen) throw new Error('no admin decision to take');
      return chosen;
    },
    /**
     * Parks the work on a failure and answers the admin's decision. The state says
     * `awaiting_admin` first: once `markFailed` (an activity) has written the row, an admin who
     * reads it may decide at once, and the workflow must take the decision. Then the
     * `BusinessStage` search attribute, then the wait (never a silent stop).
     */
    async awaitDecision(failure: UpstreamFailure<Stage>, markFailed: () => Promise<unknown>): Promise<UpstreamDecision> {
      state.failure = failure;
      state.stage = AWAITING as Stage;
      await markFailed();
      upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: AWAITING }]);
      await condition(() => decision !== null);
      const chosen = decision as UpstreamDecision | null;
      decision = null;
      if (!chosen) throw new Error('the admin decision vanished');
      return chosen;
    },
  };
}
