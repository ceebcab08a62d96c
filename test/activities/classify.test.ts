import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { classifier, classify, DATA_ERROR_REASON, dataErrorsAreFinal, type FailurePolicy, LOCAL_ERROR_REASON } from '../../activities/classify.js';
import type { FailedAttempt } from '../../domain/suppliers/step-journal.js';
import { UpstreamStepError } from '../../domain/suppliers/supplier-call.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { REFUSED_FAILURES, UPSTREAM_FAILURES } from '../../workflows/upstream/contract.js';

const policy: FailurePolicy = { refused: () => REFUSED_FAILURES.serviceOrder };

function failure(err: unknown): ApplicationFailure {
  const classified = classify(err, policy);
  expect(classified).toBeInstanceOf(ApplicationFailure);
  return classified as ApplicationFailure;
}

describe('the activity error classifier', () => {
  it('keeps the plugin’s classification as the failure type, with the code for the admin', () => {
    expect(failure(new UpstreamStepError('transient', 'upstream_unavailable', '上游暂不可用'))).toMatchObject({
      type: UPSTREAM_FAILURES.transient,
      nonRetryable: false,
      message: '上游暂不可用',
      details: [{ code: 'upstream_unavailable' }],
    });
    expect(failure(new UpstreamStepError('ambiguous', 'internal', '结果未知'))).toMatchObject({ type: UPSTREAM_FAILURES.ambiguous, nonRetryable: false });
    expect(failure(new UpstreamStepError('permanent', 'out_of_stock', '缺货'))).toMatchObject({ type: UPSTREAM_FAILURES.permanent, nonRetryable: true });
  });

  it('gives our own refusals the family’s type, not retried, and passes anything else through', () => {
    expect(failure(new AppError(ErrorCode.CONFLICT, '上游账单已支付，不能取消'))).toMatchObject({
      type: 'ServiceOrderRefused',
      nonRetryable: true,
      details: [{ code: String(ErrorCode.CONFLICT) }],
    });
    // Anything else is retried under a Chinese message: its own text stays in the worker log.
    expect(failure(new Error('connect ECONNREFUSED'))).toMatchObject({ message: LOCAL_ERROR_REASON, nonRetryable: false, details: [{ code: 'local_error' }] });
    const final = classify(new Error('not built'), { ...policy, final: (err) => (err instanceof Error && err.message === 'not built' ? 'NotBuilt' : null) });
    expect(final).toMatchObject({ type: 'NotBuilt', nonRetryable: true });
  });

  it('ends the attempt at once on a database error about the data itself, under a Chinese reason without the database text', () => {
    const upstreamPolicy: FailurePolicy = { ...policy, final: dataErrorsAreFinal(REFUSED_FAILURES.serviceOrder) };
    // As pg throws it, and as Sequelize wraps it.
    const unique = Object.assign(new Error('duplicate key value violates unique constraint "x_once"'), { code: '23505', constraint: 'x_once' });
    const wrapped = Object.assign(new Error('Validation error'), { parent: unique });
    for (const err of [unique, wrapped]) {
      const classified = classify(err, upstreamPolicy) as ApplicationFailure;
      expect(classified).toMatchObject({ type: 'ServiceOrderRefused', nonRetryable: true, message: DATA_ERROR_REASON, details: [{ code: 'data_conflict' }] });
      expect(classified.message).not.toMatch(/[A-Za-z]{3,}/);
    }
    // A connection lost (SQLSTATE class 08) may pass: retried.
    const lost = Object.assign(new Error('connection failure'), { code: '08006' });
    expect(classify(lost, upstreamPolicy)).toMatchObject({ nonRetryable: false, message: LOCAL_ERROR_REASON });
  });

  it('writes a retryable supplier failure to the work’s history, never a permanent one, and a failing write never hides the error', async () => {
    const noted: FailedAttempt[] = [];
    const classified = classifier(policy);
    const journal = async (a: FailedAttempt) => {
      noted.push(a);
    };
    await expect(classified(() => Promise.reject(new UpstreamStepError('ambiguous', 'internal', '结果未知')), journal)).rejects.toMatchObject({ type: UPSTREAM_FAILURES.ambiguous });
    await expect(classified(() => Promise.reject(new UpstreamStepError('permanent', 'out_of_stock', '缺货')), journal)).rejects.toMatchObject({ type: UPSTREAM_FAILURES.permanent });
    expect(noted).toEqual([{ attempt: 1, kind: 'ambiguous', code: 'internal', message: '结果未知', failureType: UPSTREAM_FAILURES.ambiguous }]);
    const broken = () => Promise.reject(new Error('database away'));
    await expect(classified(() => Promise.reject(new UpstreamStepError('transient', 'timeout', '超时')), broken)).rejects.toMatchObject({ type: UPSTREAM_FAILURES.transient });
  });
});
