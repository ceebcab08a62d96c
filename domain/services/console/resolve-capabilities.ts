import { SYSTEM_ACTOR, userActor } from '../../../lib/actor.js';
import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { CONSOLE_CAPABILITIES, type ConsoleCapability } from '../capabilities.js';
import { invokeServiceUpstream } from '../service-upstream.js';
import type { ServiceView } from '../service-view.js';
import { requireConsole } from './require-console.js';

/** The plugin action that tells which console capabilities a plugin-driven (`other`) service has. */
export const RESOLVE_CAPABILITY_ACTION = 'server.resolve_capability';

/**
 * The console capabilities of a plugin-driven (`other`) service, as its plugin answers them
 * through `server.resolve_capability` (payload: `host_id`, `status`, `upstream_status`,
 * `candidates`; answer `data.capabilities`: names), kept within what the plugin's manifest
 * declares (`candidates`). Fixed types answer their static capabilities without a call. A plugin
 * that fails or answers nothing usable offers nothing (`resolved: false`).
 */
export async function resolveConsoleCapabilities(
  deps: DomainDeps,
  service: ServiceView,
  userId: number | null,
): Promise<{ capabilities: ConsoleCapability[]; resolved: boolean; failure: AppError | null }> {
  if (service.type !== 'other' || service.console.read_only) return { capabilities: service.console.capabilities, resolved: true, failure: null };
  const candidates = service.console.capabilities;
  try {
    const result = await invokeServiceUpstream(deps, service.id, {
      action: RESOLVE_CAPABILITY_ACTION,
      payload: { status: service.status, upstream_status: service.upstream_status, candidates },
      actor: userId === null ? SYSTEM_ACTOR : userActor(userId),
    });
    const answered = requireSupplierData(result)['capabilities'];
    const names = new Set(Array.isArray(answered) ? answered.filter((v): v is string => typeof v === 'string') : []);
    return { capabilities: CONSOLE_CAPABILITIES.filter((c) => candidates.includes(c) && names.has(c)), resolved: true, failure: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { capabilities: [], resolved: false, failure: err };
  }
}

/**
 * `requireConsole`, and for a plugin-driven service also the plugin's answer: a capability it
 * does not offer now is 40947; a plugin that cannot answer gives its own failure (40930/50300).
 */
export async function requireConsoleAction(deps: DomainDeps, service: ServiceView, capability: ConsoleCapability, userId: number): Promise<void> {
  requireConsole(service, capability);
  if (service.type !== 'other') return;
  const resolved = await resolveConsoleCapabilities(deps, service, userId);
  if (resolved.failure) throw resolved.failure;
  if (!resolved.capabilities.includes(capability)) throw new AppError(ErrorCode.SERVICE_ACTION_UNSUPPORTED, '该服务的插件当前未提供此操作');
}

/**
 * The service with the capabilities its console offers now: for a plugin-driven service the
 * plugin's answer (nothing when it cannot answer), with the power action following it.
 */
export async function withResolvedConsole(deps: DomainDeps, service: ServiceView, userId: number): Promise<ServiceView> {
  if (service.type !== 'other' || service.console.read_only) return service;
  const { capabilities } = await resolveConsoleCapabilities(deps, service, userId);
  return { ...service, console: { ...service.console, capabilities, actions: { ...service.console.actions, power: service.console.actions.power && capabilities.includes('power') } } };
}
