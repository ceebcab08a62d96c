import type { ServiceStatus } from '../../db/models/service.js';
import { readPluginSchemas } from '../catalogue/plugin-schemas.js';
import { resolveTemplates } from '../catalogue/product-types.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { type ConsoleView, describeConsole } from './capabilities.js';
import { normaliseProductType } from './service-labels.js';

/** A service with its binding, supplier and plugin, as the console and the lists read it (never the password). */
export type ServiceViewRow = {
  id: number;
  user_id: number;
  product_id: number;
  invoice_id: number;
  status: ServiceStatus;
  product_type: string;
  billing_period: string;
  config: Record<string, { value?: unknown; label?: unknown }>;
  price: string;
  next_due_at: Date | null;
  product_name: string;
  console_template: string | null;
  provider_key: string;
  plugin_key: string;
  hostname: string;
  has_local_password: boolean;
  ip: string;
  assigned_ips: string[];
  os: string;
  username: string;
  port: number | null;
  upstream_status: string;
  provisioning_stage: string;
  failure_reason: string | null;
  auto_renew: boolean;
  activated_at: Date | null;
  suspended_at: Date | null;
  terminated_at: Date | null;
  cancelled_at: Date | null;
  upstream_synced_at: Date | null;
  created_at: Date;
  has_binding: boolean;
  upstream_host_id: string | null;
  binding_provider_key: string | null;
  upstream_product_id: string | null;
  upstream_order_id: string | null;
  upstream_invoice_id: string | null;
  bound_at: Date | null;
  supplier_id: number | null;
  supplier_code: string | null;
  supplier_name: string | null;
  plugin_id: number | null;
  plugin_row_key: string | null;
  plugin_status: string | null;
  plugin_capabilities: unknown;
  plugin_extra: unknown;
};

export type ServiceView = ServiceViewRow & {
  type: ProductType;
  hostId: number;
  providerKey: string | null;
  pluginKey: string | null;
  consoleTemplate: string | null;
  hasPassword: boolean;
  console: ConsoleView;
};

/** Columns of `ServiceViewRow`; the supplier is the binding's (else the service's), the plugin the supplier's (what a call runs). */
export const SERVICE_VIEW_SELECT = `
  SELECT s.id, s.user_id, s.product_id, s.invoice_id, s.status, s.product_type, s.billing_period, s.config, s.price,
         s.next_due_at, s.product_name, s.console_template, s.provider_key, s.plugin_key, s.hostname,
         (s.password_sealed <> '') AS has_local_password, s.ip, s.assigned_ips, s.os, s.username, s.port, s.upstream_status,
         s.provisioning_stage, s.failure_reason, s.auto_renew, s.activated_at, s.suspended_at, s.terminated_at, s.cancelled_at,
         s.upstream_synced_at, s.created_at,
         (b.service_id IS NOT NULL) AS has_binding, b.upstream_host_id::text AS upstream_host_id, b.provider_key AS binding_provider_key,
         b.upstream_product_id, b.upstream_order_id::text AS upstream_order_id, b.upstream_invoice_id::text AS upstream_invoice_id, b.bound_at,
         sp.id AS supplier_id, sp.code AS supplier_code, sp.name AS supplier_name,
         pl.id AS plugin_id, pl.key AS plugin_row_key, pl.status AS plugin_status,
         pl.manifest->'info'->'capabilities' AS plugin_capabilities, pl.manifest->'info'->'extra' AS plugin_extra
    FROM services s
    LEFT JOIN service_upstream_bindings b ON b.service_id = s.id
    LEFT JOIN suppliers sp ON sp.id = COALESCE(b.supplier_id, s.supplier_id)
    LEFT JOIN plugins pl ON pl.id = sp.plugin_id`;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * What the API shows of a row: the type normalised to the 8 types, the real provider and plugin
 * keys (the snapshot taken at provisioning, else the binding's and the plugin's own; null
 * without an upstream), the host id (0 without a binding), the console template (the snapshot,
 * else the type's, else the plugin's console schema for `other`) and the console capabilities.
 */
export function toServiceView(row: ServiceViewRow): ServiceView {
  const type = normaliseProductType(row.product_type);
  const hostId = row.upstream_host_id === null ? 0 : Number(row.upstream_host_id);
  const schemas = readPluginSchemas(row.plugin_extra);
  const templates = resolveTemplates(type, { console: row.console_template }, schemas.console ? { purchaseSchema: null, consoleSchema: schemas.console } : null);
  const pluginUsable = row.plugin_id !== null && row.plugin_status === 'enabled';
  const consoleView = describeConsole({ productType: type, status: row.status, hostId, pluginUsable, pluginCapabilities: stringList(row.plugin_capabilities) });
  return {
    ...row,
    assigned_ips: stringList(row.assigned_ips),
    type,
    hostId,
    providerKey: row.provider_key || row.binding_provider_key || null,
    pluginKey: row.plugin_key || (row.has_binding ? row.plugin_row_key : null) || null,
    consoleTemplate: templates.console_template,
    // The upstream keeps a bound host's password: the reveal reads it there when none is stored here.
    hasPassword: row.has_local_password || !consoleView.read_only,
    console: consoleView,
  };
}

/** Services by a WHERE clause over `s` (services), `b` (binding) and `sp` (supplier), in the given order. */
export async function readServiceViews(deps: DomainDeps, where: string, params: unknown[], tail = ''): Promise<ServiceView[]> {
  const rows = await sqlRows<ServiceViewRow>(deps, `${SERVICE_VIEW_SELECT} WHERE ${where} ${tail}`, params);
  return rows.map(toServiceView);
}
