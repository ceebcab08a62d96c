import { userActor } from '../../../lib/actor.js';
import type { DomainDeps } from '../../deps.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { recordServiceEvent } from '../service-events.js';
import { invokeServiceUpstream } from '../service-upstream.js';

export type ConsoleCall = {
  serviceId: number;
  userId: number;
  /** The service event's stage: power_on, vnc, reinstall, reset_password, … */
  stage: string;
  action: string;
  payload?: Record<string, unknown>;
  /** Written to the event (never a password). */
  detail?: Record<string, unknown>;
  successMessage: string;
};

/**
 * One console action through the service's upstream plugin, written to the service's history
 * either way (the plugin's Chinese message on failure; raw upstream text stays in the runtime
 * log). A refusal is 40930, an unreachable supplier 50300 (`requireSupplierData`).
 */
export async function callConsole(deps: DomainDeps, call: ConsoleCall): Promise<Record<string, unknown>> {
  const operator = { type: 'user' as const, id: call.userId };
  const result = await invokeServiceUpstream(deps, call.serviceId, {
    action: call.action,
    payload: call.payload ?? {},
    actor: userActor(call.userId),
  });
  const detail = { ...call.detail, plugin_log_id: result.logId };
  if (!result.success) {
    await recordServiceEvent(deps, { serviceId: call.serviceId, kind: 'console', stage: call.stage, status: 'failed', message: result.message, detail, operator });
  }
  const data = requireSupplierData(result);
  await recordServiceEvent(deps, { serviceId: call.serviceId, kind: 'console', stage: call.stage, status: 'succeeded', message: call.successMessage, detail, operator });
  return data;
}
