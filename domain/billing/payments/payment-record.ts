import type { PluginActor } from '../../../plugins/runtime/contract.js';
import type { Audit } from '../audit.js';

/** The plugin runtime's actor for a money operation. */
export function pluginActor(audit: Audit): PluginActor {
  const { type, id } = audit.operator;
  return { type: type === 'user' ? 'client' : type, id };
}
