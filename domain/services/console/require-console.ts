import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { ConsoleCapability } from '../capabilities.js';
import type { ServiceView } from '../service-view.js';

/**
 * A console action needs an upstream host with a usable plugin (40943: read-only console), a
 * running service (40944) and the capability in the service's console (40947).
 */
export function requireConsole(service: ServiceView, capability: ConsoleCapability): void {
  if (service.console.read_only) throw new AppError(ErrorCode.SERVICE_CONSOLE_READ_ONLY);
  if (service.status !== 'active') throw new AppError(ErrorCode.SERVICE_NOT_ACTIVE);
  if (!service.console.capabilities.includes(capability)) throw new AppError(ErrorCode.SERVICE_ACTION_UNSUPPORTED);
}
