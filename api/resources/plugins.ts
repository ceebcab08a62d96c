import { ACTOR_TYPES } from '../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { PluginBindingRow } from '../../db/models/plugin-binding.js';
import type { PluginRuntimeLogRow } from '../../db/models/plugin-runtime-log.js';
import type { PluginListItem } from '../../domain/plugins/plugin-catalogue.js';
import type { SecretBox } from '../../lib/crypto.js';
import { PLUGIN_DOMAINS } from '../../plugins/runtime/contract.js';
import { configView, hasSecretValues } from '../../plugins/runtime/config-view.js';
import { dateTimeString } from '../schemas.js';

/** Whitelist resources of the plugin admin: never a secret, never the raw manifest or config. */
const domain = z.enum(PLUGIN_DOMAINS);

export const pluginSummarySchema = z
  .object({
    id: z.number().int().nullable().openapi({ description: '未安装（recognised）时为 null' }),
    domain,
    slug: z.string(),
    key: z.string().nullable(),
    name: z.string(),
    version: z.string().nullable(),
    status: z.enum(['recognised', 'installed', 'enabled', 'disabled']),
    description: z.string().nullable(),
    capabilities: z.array(z.string()),
    error: z.string().nullable().openapi({ description: '目录或 manifest 的问题（仅未安装的插件）' }),
    has_secret_values: z.boolean(),
    installed_at: dateTimeString.nullable(),
    enabled_at: dateTimeString.nullable(),
  })
  .openapi('PluginSummary');

export function pluginSummaryResource(item: PluginListItem) {
  return {
    id: item.id,
    domain: item.domain,
    slug: item.slug,
    key: item.key,
    name: item.name,
    version: item.version,
    status: item.status,
    description: item.description,
    capabilities: item.capabilities,
    error: item.error,
    has_secret_values: item.has_secret_values,
    installed_at: formatDateTime(item.installed_at),
    enabled_at: formatDateTime(item.enabled_at),
  };
}

const configFieldSchema = z
  .object({
    key: z.string(),
    type: z.string(),
    label: z.string(),
    required: z.boolean(),
    secret: z.boolean(),
    has_value: z.boolean(),
    value: z.unknown().openapi({ description: '当前值；密钥字段恒为空字符串；json 字段为 JSON 文本（多账号密钥为掩码预览）' }),
    options: z.record(z.string(), z.string()).nullable().openapi({ description: '可选项：值 → 名称' }),
    placeholder: z.string().nullable(),
    description: z.string().nullable(),
    width: z.enum(['full', 'half']),
    disabled: z.boolean(),
    visible: z.boolean(),
    group: z.string().nullable(),
    rules: z.object({ max: z.number().nullable(), pattern: z.string().nullable(), message: z.string().nullable() }).nullable(),
    visible_when_field: z.string().nullable(),
    visible_when_operator: z.string().nullable(),
    visible_when_value: z.unknown(),
    secret_keys: z.array(z.string()).nullable(),
  })
  .openapi('PluginConfigField');

export const pluginDetailSchema = z
  .object({
    id: z.number().int(),
    domain,
    slug: z.string(),
    key: z.string(),
    name: z.string(),
    version: z.string(),
    status: z.enum(['installed', 'enabled', 'disabled']),
    description: z.string().nullable(),
    entry: z.string(),
    capabilities: z.array(z.string()),
    driver_binding_type: z.string().nullable(),
    driver_binding_key: z.string().nullable(),
    scheduled_task_keys: z.array(z.string()),
    schedule_hook_names: z.array(z.string()),
    has_secret_values: z.boolean(),
    config_fields: z.array(configFieldSchema),
    installed_at: dateTimeString.nullable(),
    enabled_at: dateTimeString.nullable(),
    disabled_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('PluginDetail');

export function pluginDetailResource(plugin: PluginRow, box: SecretBox) {
  const { info, config } = plugin.manifest;
  const stored = { config: plugin.config, secrets: plugin.secrets };
  return {
    id: plugin.id,
    domain: plugin.domain,
    slug: plugin.slug,
    key: plugin.key,
    name: plugin.name,
    version: plugin.version,
    status: plugin.status,
    description: info.description ?? null,
    entry: info.entry,
    capabilities: info.capabilities ?? [],
    driver_binding_type: info.driver_binding?.binding_type ?? null,
    driver_binding_key: info.driver_binding?.binding_key ?? null,
    scheduled_task_keys: (info.extra?.scheduled_tasks ?? []).map((t) => t.key),
    schedule_hook_names: Object.keys(info.extra?.schedule_hooks ?? {}),
    has_secret_values: hasSecretValues(stored),
    config_fields: configView(config, stored, box),
    installed_at: formatDateTime(plugin.installed_at),
    enabled_at: formatDateTime(plugin.enabled_at),
    disabled_at: formatDateTime(plugin.disabled_at),
    updated_at: formatDateTime(plugin.updated_at),
  };
}

export const pluginBindingSchema = z
  .object({
    id: z.number().int(),
    plugin_id: z.number().int(),
    plugin_slug: z.string().nullable(),
    plugin_name: z.string().nullable(),
    plugin_status: z.string().nullable(),
    domain,
    binding_type: z.enum(['default', 'supplier', 'product', 'service']),
    scene: z.string().nullable(),
    binding_id: z.number().int().nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('PluginBinding');

export function pluginBindingResource(row: PluginBindingRow) {
  return {
    id: row.id,
    plugin_id: row.plugin_id,
    plugin_slug: row.plugin?.slug ?? null,
    plugin_name: row.plugin?.name ?? null,
    plugin_status: row.plugin?.status ?? null,
    domain: row.domain,
    binding_type: row.binding_type,
    scene: row.scene,
    binding_id: row.binding_id,
    created_at: formatDateTime(row.created_at),
  };
}

const EXCERPT = 200;
const excerpt = (text: string) => (text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text);

const runtimeLogBase = {
  id: z.number().int(),
  domain,
  plugin_id: z.number().int().nullable(),
  plugin_slug: z.string(),
  binding_id: z.number().int().nullable(),
  actor_type: z.enum(ACTOR_TYPES),
  actor_id: z.number().int().nullable(),
  action: z.string(),
  status: z.enum(['success', 'failure', 'timeout']),
  duration_ms: z.number().int(),
  message: z.string(),
  trace_id: z.string(),
  created_at: dateTimeString.nullable(),
};

export const runtimeLogSchema = z
  .object({ ...runtimeLogBase, request_excerpt: z.string(), response_excerpt: z.string() })
  .openapi('PluginRuntimeLog');

export const runtimeLogDetailSchema = z
  .object({ ...runtimeLogBase, request_summary: z.string(), response_summary: z.string(), error_detail: z.string() })
  .openapi('PluginRuntimeLogDetail');

function runtimeLogBaseResource(row: PluginRuntimeLogRow) {
  return {
    id: row.id,
    domain: row.domain,
    plugin_id: row.plugin_id,
    plugin_slug: row.plugin_slug,
    binding_id: row.binding_id,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    action: row.action,
    status: row.status,
    duration_ms: row.duration_ms,
    message: row.message,
    trace_id: row.trace_id,
    created_at: formatDateTime(row.created_at),
  };
}

export function runtimeLogResource(row: PluginRuntimeLogRow) {
  return { ...runtimeLogBaseResource(row), request_excerpt: excerpt(row.request_summary), response_excerpt: excerpt(row.response_summary) };
}

/** Summaries are already redacted and truncated when written. */
export function runtimeLogDetailResource(row: PluginRuntimeLogRow) {
  return {
    ...runtimeLogBaseResource(row),
    request_summary: row.request_summary,
    response_summary: row.response_summary,
    error_detail: row.error_detail,
  };
}
