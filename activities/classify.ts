import { ApplicationFailure } from '@temporalio/common';
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

/** Runs an activity's work and throws its error classified by the policy (see `classify`). */
export function classifier(policy: FailurePolicy) {
  return async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw classify(err, policy);
    }
  };
}
