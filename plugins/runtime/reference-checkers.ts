import type { Transaction } from 'sequelize';
import type { PluginDomain } from './contract.js';
import type { RuntimeDeps } from './deps.js';

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

/** The plugin's own bindings: referenced business configuration, hard-deleted on a forced uninstall. */
export const bindingReferences: PluginReferenceChecker = {
  name: 'plugin_bindings',
  label: '插件绑定',
  count: (deps, plugin, transaction) => deps.db.models.PluginBinding.count({ where: { plugin_id: plugin.id }, transaction }),
  detach: async (deps, plugin, transaction) => {
    await deps.db.models.PluginBinding.destroy({ where: { plugin_id: plugin.id }, transaction });
  },
};

/** Suppliers speaking through the plugin: a forced uninstall disables them and clears the link. */
export const supplierReferences: PluginReferenceChecker = {
  name: 'suppliers',
  label: '供应商',
  count: (deps, plugin, transaction) => deps.db.models.Supplier.count({ where: { plugin_id: plugin.id }, transaction }),
  detach: async (deps, plugin, transaction) => {
    await deps.db.models.Supplier.update({ plugin_id: null, status: 'disabled' }, { where: { plugin_id: plugin.id }, transaction });
  },
};

/**
 * Payments taken through the plugin: real money documents, never deleted. A forced uninstall
 * keeps them and sets their `plugin_id` to null (spec: Plugin lifecycle); such a payment can
 * no longer be queried, closed or refunded through a gateway.
 */
export const paymentReferences: PluginReferenceChecker = {
  name: 'payments',
  label: '支付记录',
  count: (deps, plugin, transaction) => deps.db.models.Payment.count({ where: { plugin_id: plugin.id }, transaction }),
  detach: async (deps, plugin, transaction) => {
    await deps.db.models.Payment.update({ plugin_id: null }, { where: { plugin_id: plugin.id }, transaction });
  },
};

/**
 * The checkers every uninstall consults, seeded into the registry of `references.ts`. A table
 * that references plugins adds its checker here (e.g. payments: count rows with `plugin_id`,
 * detach by setting it to null) or calls `registerPluginReference` from its own module.
 */
export const BUILT_IN_REFERENCE_CHECKERS: PluginReferenceChecker[] = [bindingReferences, supplierReferences, paymentReferences];
