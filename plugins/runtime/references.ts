import type { Transaction } from 'sequelize';
import type { RuntimeDeps } from './deps.js';
import type { PluginDomain } from './contract.js';
import { BUILT_IN_REFERENCE_CHECKERS } from './reference-checkers.js';

export type PluginRef = { id: number; domain: PluginDomain; slug: string };

/**
 * Business data that may point at an installed plugin. Uninstall asks every checker for a
 * count and refuses when any is above zero; with `force=1` it runs every `detach` in the same
 * transaction (delete the rows or set their `plugin_id` to null), then removes the plugin.
 */
export type PluginReferenceChecker = {
  /** Stable name, e.g. `plugin_bindings`, `payments`. */
  name: string;
  /** Chinese label used in the refusal message, e.g. `支付记录`. */
  label: string;
  count(deps: RuntimeDeps, plugin: PluginRef, transaction: Transaction): Promise<number>;
  detach(deps: RuntimeDeps, plugin: PluginRef, transaction: Transaction): Promise<void>;
};

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
