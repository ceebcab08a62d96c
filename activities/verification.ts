import type { DomainDeps } from '../domain/deps.js';
import { checkAttempt, expireAttempt } from '../domain/verification/results.js';

/**
 * Activities of the verification workflow: thin adapters over domain/verification. A provider
 * that does not answer throws and is retried by the workflow's policy; nothing here is a refusal.
 */
export function createVerificationActivities(deps: DomainDeps) {
  return {
    checkVerification: (input: { attemptNo: string }) => checkAttempt(deps, input.attemptNo),
    expireVerification: (input: { attemptNo: string }) => expireAttempt(deps, input.attemptNo),
  };
}
