import type { DomainDeps } from '../domain/deps.js';
import { finishTaskRun, startTaskRun } from '../domain/tasks/task-runs.js';
import { createTaskActivities } from './tasks.js';
import { createServiceOrderActivities } from './service-orders.js';
import { createBillingActivities } from './billing.js';
import { createProvisioningActivities } from './provisioning.js';
import { createVerificationActivities } from './verification.js';
import { observeCancellation } from './observe-cancellation.js';

/**
 * Activities are thin adapters over domain/: the same functions routes call. Every activity
 * is safe to retry (idempotent per workflow run), and observes its cancellation
 * (./observe-cancellation.ts: heartbeats, and stops waiting when its worker stops).
 */
export function createActivities(deps: DomainDeps) {
  return observeCancellation({
    startTaskRun: (input: Parameters<typeof startTaskRun>[1]) => startTaskRun(deps, input),
    finishTaskRun: (input: Parameters<typeof finishTaskRun>[1]) => finishTaskRun(deps, input),
    ...createTaskActivities(deps),
    ...createServiceOrderActivities(deps),
    ...createBillingActivities(deps),
    ...createProvisioningActivities(deps),
    ...createVerificationActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
