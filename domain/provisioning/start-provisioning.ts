import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { DomainDeps } from '../deps.js';
import { PROVISION_STAGE_QUEUED, PROVISION_WORKFLOW_TYPE, provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { SearchAttr } from '../../workflows/search-attributes.js';

/**
 * Starts `provision:<service_id>` once: a running one is reused, a finished one is never
 * started again (reuse policy REJECT_DUPLICATE), so a repeated dispatch cannot provision twice.
 * The call gets `deadlineMs`: a start cut off by it may or may not have happened, and the next
 * attempt (same id) settles which.
 */
export async function startProvisioning(deps: DomainDeps, service: { id: number; user_id: number }, deadlineMs: number): Promise<void> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start provisioning');
  try {
    await deps.temporal.withDeadline(
      (client) =>
        client.workflow.start(PROVISION_WORKFLOW_TYPE, {
          workflowId: provisionWorkflowId(service.id),
          taskQueue: deps.config.temporal.taskQueue,
          args: [{ serviceId: service.id, timing: deps.config.provisioning }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: SearchAttr.ServiceId, value: service.id },
            { key: SearchAttr.UserId, value: service.user_id },
            { key: SearchAttr.BusinessStage, value: PROVISION_STAGE_QUEUED },
          ],
        }),
      deadlineMs,
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}
