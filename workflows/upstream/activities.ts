import { type ActivityOptions, type LocalActivityOptions, patched, proxyActivities, proxyLocalActivities, type RetryPolicy } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Activities } from '../../activities/index.js';
import { ACTIVITY_HEARTBEAT_TIMEOUT } from '../activity-liveness.js';
import { REFUSED_FAILURES, UPSTREAM_FAILURES, type UpstreamWork } from './contract.js';

/**
 * Local or regular activities, chosen once per kind of upstream work, here.
 *
 * - `provision`: local activities. Provisionings come in bursts (a sale, a batch paid at once:
 *   the benchmark runs 200 at once); a local activity runs inside the workflow task, so a
 *   provisioning's steps cost a fraction of the server round trips, and its retries back off on
 *   workflow timers (the UI shows where it waits). The price: a running step holds a
 *   workflow-task slot (activities/worker.ts sizes them) and is not listed as a pending activity.
 * - `serviceOrder` (renewals, traffic packages, upgrades): regular activities. One per paid invoice, rarely
 *   many at once; a step may take long (a call that logs in, sends, logs in again and sends again:
 *   up to 45 s), and each attempt with its last failure shows in the Temporal UI as a pending
 *   activity.
 *
 * Neither may simply be switched: a local activity is recorded as a marker, a regular one as
 * scheduled/started/completed events, so running workflows would no longer replay. A switch
 * needs `patched()` around both shapes. New work picks its line here (upgrades are service
 * orders: regular, for the same reasons).
 */
const MODE: Record<UpstreamWork, 'local' | 'regular'> = { provision: 'local', serviceOrder: 'regular' };

/** How long local activity retries may back off inside one workflow task (then: a timer). */
const LOCAL_RETRY_THRESHOLD = '3s';

/** Backoff of every upstream step: 2 s doubling to 1 min. */
const UPSTREAM_BACKOFF: RetryPolicy = { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m' };

/**
 * The two activity proxies of upstream work: `upstream` for the supplier steps (transient and
 * ambiguous failures retried up to `maximumAttempts`, each attempt reconciling first when an
 * earlier one may have committed; permanent failures and our own refusals stop at once) and
 * `local` for our own database steps (retried until the database answers; refusals stop).
 */
export function upstreamActivities(work: UpstreamWork, upstream: { startToCloseTimeout: Duration; maximumAttempts: number }) {
  const refused = REFUSED_FAILURES[work];
  const upstreamOptions: ActivityOptions & LocalActivityOptions = {
    startToCloseTimeout: upstream.startToCloseTimeout,
    retry: { ...UPSTREAM_BACKOFF, maximumAttempts: upstream.maximumAttempts, nonRetryableErrorTypes: [UPSTREAM_FAILURES.permanent, refused] },
  };
  const localOptions: ActivityOptions & LocalActivityOptions = {
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: [refused] },
  };
  if (MODE[work] === 'local') {
    // A local activity's retries run inside the workflow task while their backoff stays under
    // this threshold (the SDK's default is a minute: a failing step held the task for minutes).
    // Past it, each retry waits on a workflow timer, outside the task. Behind a patch: histories
    // recorded before keep the old default.
    if (patched('local-retries-bounded-in-task')) {
      upstreamOptions.localRetryThreshold = LOCAL_RETRY_THRESHOLD;
      localOptions.localRetryThreshold = LOCAL_RETRY_THRESHOLD;
    }
    return {
      upstream: proxyLocalActivities<Activities>(upstreamOptions),
      local: proxyLocalActivities<Activities>(localOptions),
    };
  }
  // A regular supplier step may wait long on its supplier: it heartbeats (../activity-liveness.ts).
  return {
    upstream: proxyActivities<Activities>({ ...upstreamOptions, heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT }),
    local: proxyActivities<Activities>(localOptions),
  };
}
