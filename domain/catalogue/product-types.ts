import { PRODUCT_TYPES, type ProductType } from '../../db/models/catalogue.js';

/**
 * What each of the 8 fixed product types (spec: Product type, Product type resolution; the
 * list itself lives beside the schema, `db/models/catalogue.ts`) means: label and templates.
 */
type TypeDefinition = { label: string; purchaseTemplate: string; consoleTemplate: string; pluginDriven: boolean };

const DEFINITIONS: Record<ProductType, TypeDefinition> = {
  cloud_server: { label: '云服务器', purchaseTemplate: 'compute', consoleTemplate: 'compute', pluginDriven: false },
  game_cloud: { label: '游戏云', purchaseTemplate: 'compute_game', consoleTemplate: 'game_compute', pluginDriven: false },
  cloud_desktop: { label: '云桌面', purchaseTemplate: 'cloud_desktop', consoleTemplate: 'cloud_desktop', pluginDriven: false },
  bare_metal: { label: '裸金属服务器', purchaseTemplate: 'bare_metal', consoleTemplate: 'bare_metal', pluginDriven: false },
  cdn: { label: 'CDN', purchaseTemplate: 'cdn', consoleTemplate: 'cdn', pluginDriven: false },
  other: { label: '其他（插件提供）', purchaseTemplate: 'plugin_schema', consoleTemplate: 'plugin_schema', pluginDriven: true },
  physical_machine: { label: '物理机', purchaseTemplate: 'physical_machine', consoleTemplate: 'physical_machine', pluginDriven: false },
  web_hosting: { label: '虚拟主机', purchaseTemplate: 'web_hosting', consoleTemplate: 'web_hosting', pluginDriven: false },
};

export function isProductType(value: string): value is ProductType {
  return (PRODUCT_TYPES as readonly string[]).includes(value);
}

export function productTypeLabel(type: ProductType): string {
  return DEFINITIONS[type].label;
}

/** The admin type-option list: `value`, `label`, `is_plugin_driven`. */
export function productTypeOptions() {
  return PRODUCT_TYPES.map((value) => ({ value, label: DEFINITIONS[value].label, is_plugin_driven: DEFINITIONS[value].pluginDriven }));
}

/** What an upstream plugin offers a product of type `other` (from its manifest). */
export type PluginTemplates = {
  purchaseSchema: { template: string } | null;
  consoleSchema: { template: string } | null;
};

export type ResolvedTemplates = {
  purchase_template: string | null;
  console_template: string | null;
  /** False when nothing can render the purchase page: the product is not purchasable online. */
  purchasable_online: boolean;
  console_available: boolean;
};

/**
 * Template resolution in the spec's order: an explicit template on the product; the built-in
 * template of the type; for `other`, the upstream plugin's schemas; otherwise online purchase
 * (or the base console) is disabled.
 */
export function resolveTemplates(
  type: ProductType,
  explicit: { purchase?: string | null; console?: string | null },
  plugin: PluginTemplates | null,
): ResolvedTemplates {
  const builtIn = DEFINITIONS[type].pluginDriven ? null : DEFINITIONS[type];
  const purchase = explicit.purchase || builtIn?.purchaseTemplate || (plugin?.purchaseSchema ? DEFINITIONS.other.purchaseTemplate : null);
  const consoleTemplate = explicit.console || builtIn?.consoleTemplate || (plugin?.consoleSchema ? DEFINITIONS.other.consoleTemplate : null);
  return {
    purchase_template: purchase,
    console_template: consoleTemplate,
    purchasable_online: purchase !== null,
    console_available: consoleTemplate !== null,
  };
}
