import type { Transaction } from 'sequelize';
import type { RuntimeDeps } from './deps.js';
import { BUILT_IN_REFERENCE_CHECKERS, type PluginRef, type PluginReferenceChecker } from './reference-checkers.js';

export type PluginReference = { name: string; label: string; count: number };

const registry = new Map<string, PluginReferenceChecker>(BUILT_IN_REFERENCE_CHECKERS.map((c) => [c.name, c]));

/** Registers (or replaces, by name) a checker; tables that reference plugins call this once at import. */
export function registerPluginReference(checker: PluginReferenceChecker): void {
  registry.set(checker.name, checker);
}

export function unregisterPluginReference(name: string): void {
  registry.delete(name);
}

export function pluginReferenceCheckers(): PluginReferenceChecker[] {
  return [...registry.values()];
}

export async function findPluginReferences(deps: RuntimeDeps, plugin: PluginRef, transaction: Transaction): Promise<PluginReference[]> {
  const found: PluginReference[] = [];
  for (const checker of registry.values()) {
    const count = await checker.count(deps, plugin, transaction);
    if (count > 0) found.push({ name: checker.name, label: checker.label, count });
  }
  return found;
}

export async function detachPluginReferences(deps: RuntimeDeps, plugin: PluginRef, transaction: Transaction): Promise<void> {
  for (const checker of registry.values()) await checker.detach(deps, plugin, transaction);
}
