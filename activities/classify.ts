import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { FailedAttempt } from '../domain/suppliers/step-journal.js';
import { UpstreamStepError } from '../domain/suppliers/supplier-call.js';
import { isDeterministicDataError } from '../db/pg-errors.js';
import { AppError } from '../lib/errors.js';
import { REFUSED_FAILURES, UPSTREAM_FAILURES, type UpstreamWork } from '../workflows/upstream/contract.js';

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

/** What an admin reads when our own data refused a step: no database text (that goes to the log). */
export const DATA_ERROR_REASON = '本地数据校验未通过（约束冲突或数据无效），重试无法解决，请管理员检查（详情见工作进程日志）';
/** What an admin reads when a step failed for a reason of ours that may pass (database away, a bug). */
export const LOCAL_ERROR_REASON = '本地步骤出错（数据库暂不可用或程序错误），详情见工作进程日志';

/** The raw error, for operators: the activity's log (the worker log), never an answer. */
function logRaw(err: unknown, what: string): void {
  try {
    Context.current().log.warn(what, { error: err instanceof Error ? err.message : String(err) });
  } catch {
    // Outside an activity (a direct call in a test) there is no activity logger.
  }
}

/**
 * The one translation of an activity's error into what the workflow's retry policy reads: a
 * supplier failure keeps the plugin's classification as its type (permanent: not retried, an
 * admin decides; transient and ambiguous: retried with backoff, ambiguous steps reconciling
 * first), our own refusals and the family's final errors are not retried, and anything else
 * (database away, a bug) is retried under a Chinese message, its own text only in the worker
 * log. A family's `final` may name database errors about the data itself
 * (`isDeterministicDataError`): they stop at once with `DATA_ERROR_REASON` and the code
 * `data_conflict`. `details[0].code` carries the code the admin sees.
 */
export function classify(err: unknown, policy: FailurePolicy): unknown {
  const final = policy.final?.(err);
  if (final) {
    if (!isDeterministicDataError(err)) return ApplicationFailure.nonRetryable(err instanceof Error ? err.message : String(err), final);
    logRaw(err, 'step refused by our own data');
    return ApplicationFailure.create({ message: DATA_ERROR_REASON, type: final, details: [{ code: 'data_conflict' }], nonRetryable: true });
  }
  if (err instanceof UpstreamStepError) {
    return ApplicationFailure.create({ message: err.message, type: TYPE_BY_KIND[err.kind], details: [{ code: err.code }], nonRetryable: err.kind === 'permanent' });
  }
  if (err instanceof AppError) {
    return ApplicationFailure.create({ message: err.message, type: policy.refused(err), details: [{ code: String(err.code) }], nonRetryable: true });
  }
  if (err instanceof ApplicationFailure) return err;
  logRaw(err, 'step failed, retried');
  return ApplicationFailure.create({ message: LOCAL_ERROR_REASON, type: err instanceof Error ? err.name : 'Error', details: [{ code: 'local_error' }] });
}

/** `final` of upstream work: database errors about the data itself end the attempt (see `classify`). */
export function dataErrorsAreFinal(type: string): FailurePolicy['final'] {
  return (err) => (isDeterministicDataError(err) ? type : null);
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

/**
 * The classifier of one kind of upstream work's activities (provisioning, service orders): our
 * own refusals and data errors get the kind's refusal type (as its histories recorded it).
 */
export function upstreamClassifier(work: UpstreamWork) {
  const refused = REFUSED_FAILURES[work];
  return classifier({ refused: () => refused, final: dataErrorsAreFinal(refused) });
}
