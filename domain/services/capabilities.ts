import type { ServiceStatus } from '../../db/models/service.js';
import type { ProductType } from '../../db/models/catalogue.js';

/**
 * What the service console can do, as the client sees it (spec: "Console buttons are shown only
 * for capabilities the backend returns"). Only capabilities a route of ours serves are listed:
 * `runtime` (live state: GET …/runtime), `power`, `vnc`, `reinstall`, `reset_password`,
 * `traffic_packages`, `network` (NAT port forwarding: …/nat-rules), `security` (security groups
 * linked to the service: …/security-groups) and `monitoring` (…/monitoring).
 */
export const CONSOLE_CAPABILITIES = ['runtime', 'power', 'vnc', 'reinstall', 'reset_password', 'traffic_packages', 'network', 'security', 'monitoring'] as const;
export type ConsoleCapability = (typeof CONSOLE_CAPABILITIES)[number];

const COMPUTE: readonly ConsoleCapability[] = CONSOLE_CAPABILITIES;

/** What each fixed type's console template shows; `other` shows whatever its plugin offers. */
const BY_TYPE: Record<ProductType, readonly ConsoleCapability[]> = {
  cloud_server: COMPUTE,
  game_cloud: COMPUTE,
  cloud_desktop: COMPUTE,
  bare_metal: COMPUTE,
  physical_machine: COMPUTE,
  cdn: ['runtime', 'traffic_packages'],
  web_hosting: ['runtime', 'reset_password'],
  other: CONSOLE_CAPABILITIES,
};

/** The plugin actions (manifest `info.capabilities`) a console capability needs. */
const NEEDS: Record<ConsoleCapability, readonly string[]> = {
  runtime: ['host_detail', 'host_action'],
  power: ['host_action'],
  vnc: ['console_ticket'],
  reinstall: ['host_action'],
  reset_password: ['host_action'],
  traffic_packages: ['traffic_packages', 'traffic_package_buy'],
  // The module actions alone do not say which custom modules the upstream runs: the plugin
  // declares the NAT and security group modules by name.
  network: ['module_action', 'module_page', 'nat_rules'],
  security: ['module_action', 'module_page', 'security_groups'],
  monitoring: ['host_monitoring'],
};

export type ConsoleInput = {
  productType: ProductType;
  status: ServiceStatus;
  /** The upstream host of the service's binding; 0 without one. */
  hostId: number;
  /** The bound plugin is installed and enabled and the supplier can reach it. */
  pluginUsable: boolean;
  pluginCapabilities: readonly string[];
};

export type ConsoleView = {
  capabilities: ConsoleCapability[];
  /** The console buttons that work right now. */
  actions: { power: boolean; module_status: boolean };
  /** Without a usable upstream host the console only shows what we store. */
  read_only: boolean;
};

/**
 * Capabilities: the type's console ∩ what the bound plugin declares; none without an upstream
 * host or with the plugin gone (read-only console). Actions also need the service `active`.
 */
export function describeConsole(input: ConsoleInput): ConsoleView {
  const readOnly = input.hostId <= 0 || !input.pluginUsable;
  const offered = new Set(input.pluginCapabilities);
  const capabilities = readOnly ? [] : BY_TYPE[input.productType].filter((c) => NEEDS[c].every((action) => offered.has(action)));
  const active = input.status === 'active';
  return {
    capabilities,
    actions: {
      power: active && capabilities.includes('power'),
      module_status: active && !readOnly && offered.has('module_page'),
    },
    read_only: readOnly,
  };
}
