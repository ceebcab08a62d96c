import type { SandboxHost } from './hosts-data.js';
import type { SandboxState } from './state.js';

/** A paid host starts provisioning: active at once, or after the configured polls and time. */
export function startProvisioning(state: SandboxState, host: SandboxHost, nowMs: number): void {
  const { polls, ms } = state.provisioningDelay;
  if (polls <= 0 && ms <= 0) {
    host.status = 'Active';
    host.provisioning = null;
    return;
  }
  host.provisioning = { pollsLeft: polls, readyAt: nowMs + ms };
}

/**
 * Moves a provisioning host on. A host-detail read (`poll`) uses up one of the polls it must
 * wait; once none are left and the time has come, the host is `Active`.
 */
export function refreshHost(host: SandboxHost, poll: boolean, nowMs: number = Date.now()): void {
  const provisioning = host.provisioning;
  if (!provisioning || host.status !== 'Pending') return;
  if (poll && provisioning.pollsLeft > 0) {
    provisioning.pollsLeft -= 1;
    return;
  }
  if (provisioning.pollsLeft <= 0 && nowMs >= provisioning.readyAt) {
    host.status = 'Active';
    host.provisioning = null;
  }
}
