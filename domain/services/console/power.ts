import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { callConsole } from './console-call.js';
import { requireConsoleAction } from './resolve-capabilities.js';

/** Our power verbs → the upstream plugin's `host_action` actions. */
export const POWER_ACTIONS = {
  on: { action: 'power_on', message: '已开机' },
  off: { action: 'power_off', message: '已关机' },
  reboot: { action: 'reboot', message: '已重启' },
  hard_off: { action: 'hard_power_off', message: '已强制关机' },
  hard_reboot: { action: 'hard_reboot', message: '已强制重启' },
} as const;
export type PowerAction = keyof typeof POWER_ACTIONS;
export const POWER_ACTION_NAMES = Object.keys(POWER_ACTIONS) as PowerAction[];

export async function runPowerAction(deps: DomainDeps, input: { serviceId: number; userId: number; action: PowerAction }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'power', input.userId);
  const verb = POWER_ACTIONS[input.action];
  await callConsole(deps, {
    serviceId: service.id,
    userId: input.userId,
    stage: verb.action,
    action: 'upstream.host_action',
    payload: { action: verb.action },
    successMessage: verb.message,
  });
  return { service_id: service.id, action: input.action, done: true, message: verb.message };
}
