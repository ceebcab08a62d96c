import { condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { QueryDefinition, UpdateDefinition } from '@temporalio/common';
import { SearchAttr } from '../search-attributes.js';
import { AWAITING_ADMIN as AWAITING, type UpstreamDecision, type UpstreamFailure, type UpstreamState } from './contract.js';

/**
 * The state query and the decide update of one upstream workflow, and the one way it waits for
 * an admin. The update is accepted only while the work waits and no decision is pending (the
 * validator runs before anything is written to the history, so a refused update leaves none).
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
        if (state.stage !== AWAITING || decision !== null) throw new Error('only work awaiting an admin decision can be retried or cancelled');
        if (d.action !== 'retry' && d.action !== 'cancel') throw new Error('action must be retry or cancel');
      },
    },
  );

  return {
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
