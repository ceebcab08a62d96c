import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { FailedAttempt } from '../domain/suppliers/step-journal.js';
import { UpstreamStepError } from '../domain/suppliers/supplier-call.js';
import { AppError } from '../lib/errors.js';
import { UPSTREAM_FAILURES } from '../workflows/upstream/contract.js';

/** How one family of activities names the failures retrying cannot fix. */
export type FailurePolicy = {
  /** The failure type of our own refusal (an AppError). */
  refused: (err: AppError) => string;
  /** Other errors final for this family: their failure type, or null. */
  final?: (err: unknown) => string | null;
};

const TYPE_BY_KIND = {
  transient: UPSTREAM_FAILURES.transient,
  ambiguous: UPSTREAM_FAILURES.ambiguous,
  permanent: UPSTREAM_FAILURES.permanent,
} as const;

/**
 * The one translation of an activity's error into what the workflow's retry policy reads: a
 * supplier failure keeps the plugin's classification as its type (permanent: not retried, an
 * admin decides; transient and ambiguous: retried with backoff, ambiguous steps reconciling
 * first), our own refusals and the family's final errors are not retried, and anything else
 * (database away, a bug) is thrown as is and retried. `details[0].code` carries the code the
 * admin sees.
 */
export function classify(err: unknown, policy: FailurePolicy): unknown {
  const final = policy.final?.(err);
  if (final) return ApplicationFailure.nonRetryable(err instanceof Error ? err.message : String(err), final);
  if (err instanceof UpstreamStepError) {
    return ApplicationFailure.create({ message: err.message, type: TYPE_BY_KIND[err.kind], details: [{ code: err.code }], nonRetryable: err.kind === 'permanent' });
  }
  if (err instanceof AppError) {
    return ApplicationFailure.create({ message: err.message, type: policy.refused(err), details: [{ code: String(err.code) }], nonRetryable: true });
  }
  return err;
}

/** Where an upstream step's failed attempts go: a row of its work's history. */
export type AttemptJournal = (attempt: FailedAttempt) => Promise<void>;

/** The current activity's attempt (1 outside an activity, e.g. a direct call in a test). */
function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * A retryable supplier failure (transient or ambiguous) leaves a row in the work's history
 * before the retry policy takes over: the attempt, its classification, the plugin's reason. A
 * permanent one does not: the workflow parks on it and its failure row says the same. Writing
 * the row never replaces the step's own error.
 */
async function noteAttempt(journal: AttemptJournal, err: UpstreamStepError): Promise<void> {
  if (err.kind === 'permanent') return;
  try {
    await journal({ attempt: currentAttempt(), kind: err.kind, code: err.code, message: err.message, failureType: TYPE_BY_KIND[err.kind] });
  } catch (noteErr) {
    try {
      Context.current().log.warn('failed attempt not recorded', { error: noteErr instanceof Error ? noteErr.message : String(noteErr) });
    } catch {
      // Outside an activity there is no activity logger; the step's own error still goes up.
    }
  }
}

/**
 * Runs an activity's work and throws its error classified by the policy (see `classify`); with
 * a journal, a failed supplier attempt is also written to the work's history.
 */
export function classifier(policy: FailurePolicy) {
  return async <T>(work: () => Promise<T>, journal?: AttemptJournal): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (journal && err instanceof UpstreamStepError) await noteAttempt(journal, err);
      throw classify(err, policy);
    }
  };
}
