import { readPluginSchemas } from '../../catalogue/plugin-schemas.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { SERVICE_STATUS_LABELS } from '../service-labels.js';
import { resolveConsoleCapabilities } from './resolve-capabilities.js';

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The plugin's label of an upstream status (`status_mapping`), matched exactly, else ignoring case. */
export function mapPluginStatus(mapping: Record<string, string> | null, status: string): string | null {
  if (!mapping || status === '') return null;
  if (Object.hasOwn(mapping, status)) return mapping[status] ?? null;
  const key = Object.keys(mapping).find((k) => k.toLowerCase() === status.toLowerCase());
  return key === undefined ? null : (mapping[key] ?? null);
}

/**
 * What the service console shows. A plugin-driven (`other`) service shows its plugin's
 * `console_schema`: the template, the sections, and of its actions exactly those whose
 * `capability` the plugin offers now (`server.resolve_capability`), with the upstream status
 * labelled by the plugin's `status_mapping`. Fixed types show their template and capabilities.
 */
export async function readServiceConsole(deps: DomainDeps, input: { serviceId: number; userId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  const resolved = await resolveConsoleCapabilities(deps, service, input.userId);
  const schemas = service.type === 'other' ? readPluginSchemas(service.plugin_extra) : null;
  const consoleSchema = schemas?.console ?? null;
  const offered = new Set<string>(resolved.capabilities);
  const actions = (consoleSchema?.actions ?? []).filter(isItem).filter((a) => typeof a['capability'] === 'string' && offered.has(a['capability']));
  return {
    service_id: service.id,
    product_type: service.type,
    // `plugin_schema` says the plugin's schema decides: its own template name is what the page draws.
    template: consoleSchema?.template ?? service.consoleTemplate,
    sections: (consoleSchema?.sections ?? []).filter(isItem),
    actions,
    capabilities: resolved.capabilities,
    capabilities_resolved: resolved.resolved,
    read_only: service.console.read_only,
    status: service.status,
    status_label: SERVICE_STATUS_LABELS[service.status],
    upstream_status: service.upstream_status,
    upstream_status_label: mapPluginStatus(schemas?.statusMapping ?? null, service.upstream_status),
  };
}
