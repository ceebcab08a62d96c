import { condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttr } from '../search-attributes.js';
import { PROVISION_STAGE_AWAITING, type ProvisionInput, type ProvisionResult, proceedSignal } from './contract.js';

/**
 * Placeholder provisioning: visible in the Temporal UI as `BusinessStage = awaiting_provisioning`
 * (filter by `ServiceId`), waiting for `provision.proceed`. The provisioning issue replaces
 * this body (cart, checkout, upstream pay, host lookup).
 */
export async function provisionServiceWorkflow(input: ProvisionInput): Promise<ProvisionResult> {
  let released = false;
  setHandler(proceedSignal, () => {
    released = true;
  });
  upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: PROVISION_STAGE_AWAITING }]);
  await condition(() => released);
  return { serviceId: input.serviceId, outcome: 'released' };
}
