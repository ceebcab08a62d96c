import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerIntegrity } from '../../../domain/billing/integrity/check-ledger-integrity.js';
import { repairFulfilmentOutbox } from '../../../domain/upstream-work/repair-fulfilment-outbox.js';
import { provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { adjustBalance, expectBooksBalanced, purchase, registerClient } from '../../helpers/billing.js';
import { PROVISION_TEST_ENV, serviceReaches } from '../../helpers/provisioning.js';
import { startServicesPlatform, type ServicesPlatform } from '../../helpers/services.js';
import { eventually } from '../../helpers/wait.js';

/**
 * After a restore (docs/production.md "After a restore"): Temporal's data older than the
 * platform's leaves a purchase the platform marks dispatched, its service still provisioning,
 * with no workflow. Made here as a restore would leave it (the service sent back to
 * `provisioning`, its workflow deleted from Temporal); the cluster test restores for real.
 */
let platform: ServicesPlatform;
beforeAll(async () => {
  platform = await startServicesPlatform(PROVISION_TEST_ENV);
});
afterAll(() => platform?.close());

describe('the fulfilment backstop after a restore', () => {
  it('dispatches again a purchase whose provisioning workflow Temporal does not know, and the supplier is asked with the same reference', async () => {
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '1000.00');
    const invoice = await purchase(platform, client, platform.productId);
    expect((await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token })).body.code).toBe(0);
    const created = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id as number } }), 600);
    const active = await serviceReaches(platform, created.id, ['active', 'failed']);
    expect(active.status).toBe('active');
    const reference = active.downstream_token as string;
    expect(platform.sandbox.control.ledger().purchases[reference]).toBe(1);

    const workflowId = provisionWorkflowId(active.id);
    await platform.temporal.workflowService.deleteWorkflowExecution({ namespace: platform.deps.config.temporal.namespace, workflowExecution: { workflowId } });
    await eventually(() =>
      platform.temporal.workflow
        .getHandle(workflowId)
        .describe()
        .then(
          () => null,
          (err: unknown) => (err instanceof WorkflowNotFoundError ? true : null),
        ),
    600);
    await platform.deps.db.read(`UPDATE services SET status = 'provisioning', provisioning_stage = 'queued' WHERE id = $1`, [active.id]);

    const repair = await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 });
    expect(repair.unknownToTemporal).toEqual([invoice.id]);
    const again = await serviceReaches(platform, active.id, ['active', 'failed']);
    expect(again.status).toBe('active');
    expect(again.downstream_token).toBe(reference);
    expect(platform.sandbox.control.ledger().purchases[reference]).toBe(1);
    expect((await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 })).unknownToTemporal).toEqual([]);
    await expectBooksBalanced(platform);
    expect(await checkLedgerIntegrity(platform.deps)).toEqual([]);
  });
});
