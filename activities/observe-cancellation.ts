import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { runCancellable } from '../lib/cancellation.js';

/**
 * How often a running (regular) activity tells the server it is alive. The workflows that run
 * long activities set a heartbeat timeout a few times this (`ACTIVITY_HEARTBEAT_TIMEOUT`,
 * workflows/upstream/contract.ts), so a worker that dies is noticed then, not at the
 * start-to-close timeout; the SDK throttles the calls further. Local activities do not beat.
 */
export const HEARTBEAT_EVERY_MS = 5_000;

/** The failure type of an attempt ended by its worker's shutdown: retried at once elsewhere. */
export const WORKER_SHUTDOWN_FAILURE = 'WorkerShutdown';

/** What the Temporal UI and an admin read of such an attempt. */
export const WORKER_SHUTDOWN_MESSAGE = '工作进程正在停止：本次尝试已中止，将由其他工作进程重试';

/**
 * The Temporal failure for an activity that ended because it was cancelled: the worker stopping
 * (its shutdown grace ran out) fails the attempt as retryable `WorkerShutdown`, so another worker
 * runs it again at once instead of waiting for its start-to-close timeout; a cancellation the
 * server asked for (the workflow cancelled the activity, a reset, a pause) is reported as the
 * SDK's own `CancelledFailure`, which it completes as cancelled.
 */
function cancellationFailure(reason: unknown): Error {
  if (reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN') {
    return ApplicationFailure.create({ message: WORKER_SHUTDOWN_MESSAGE, type: WORKER_SHUTDOWN_FAILURE, details: [{ code: 'worker_shutdown' }] });
  }
  return reason instanceof Error ? reason : new CancelledFailure(String(reason));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- activities take any input
type ActivityFunction = (...args: any[]) => Promise<unknown>;

/**
 * Every activity observes its cancellation (docs/production.md "Stopping (SIGTERM)"): it runs
 * inside the activity's cancellation (lib/cancellation.ts), so a plugin call waiting on a
 * supplier, or a task between batches, stops when the worker's grace ends; a regular activity
 * heartbeats every `HEARTBEAT_EVERY_MS` while it runs, which is also how a cancellation the
 * server asks for reaches it. Called outside an activity (a test calling it directly) it is the
 * function itself.
 */
export function observeCancellation<A extends Record<string, ActivityFunction>>(activities: A): A {
  const wrapped: Record<string, ActivityFunction> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: unknown[]) => {
      let context: Context;
      try {
        context = Context.current();
      } catch {
        return activity(...args);
      }
      const signal = context.cancellationSignal;
      const beat = context.info.isLocal ? null : setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await runCancellable(signal, () => activity(...args));
      } catch (err) {
        throw signal.aborted ? cancellationFailure(signal.reason) : err;
      } finally {
        if (beat) clearInterval(beat);
      }
    };
  }
  return wrapped as A;
}
