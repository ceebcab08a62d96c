/**
 * The plugin contract (spec: Plugin, Plugin lifecycle, Events 3-5). A plugin is a folder
 * `plugins/<domain>/<slug>/` with `manifest.json` (read without running code) and an entry
 * module (`info.entry`, e.g. `index.js`, resolved to `index.ts` in source) that exports
 * `execute` and, when declared, the listeners named by `info.extra.schedule_hooks`.
 */

import type { Actor } from '../../lib/actor.js';
import type { PluginDomain } from '../../lib/plugin-manifest.js';

/** The manifest part of the contract (defined in lib: the plugin tables store it too). */
export {
  PLUGIN_DOMAINS,
  SUPPORTED_FIELD_TYPES,
  DISPLAY_ONLY_FIELD_TYPES,
  UNIMPLEMENTED_FIELD_TYPES,
  FORBIDDEN_FIELD_TYPES,
  type PluginDomain,
  type ConfigFieldType,
  type ConfigOption,
  type ConfigFieldDefinition,
  type TaskTrigger,
  type ScheduledTaskDeclaration,
  type ScheduleHookListener,
  type PluginManifest,
} from '../../lib/plugin-manifest.js';
/** Who caused the call (`lib/actor.ts`: admin, user or system). */
export type { Actor } from '../../lib/actor.js';

export type PluginContext = {
  traceId: string;
  actor: Actor;
  /** Aborted when the invocation's timeout passes; pass it to fetch. */
  signal: AbortSignal;
  /** Absolute URLs the platform exposes to third parties (e.g. the payment notify URL). */
  urls: { publicBaseUrl: string };
  /** Custom hooks (spec: Events 3): `fire('plugins.<own slug>.<action>', payload)`. */
  hooks?: PluginHooks;
};

/**
 * Fires a custom hook to the listeners enabled plugins declared under that name; resolves with
 * how many listeners ran and failed and their array items. Throws for a name outside the
 * plugin's own `plugins.<slug>.` namespace.
 */
export type PluginHooks = {
  fire(name: string, payload?: Record<string, unknown>): Promise<{ listeners: number; failed: number; entries: unknown[] }>;
};

export type PluginExecuteInput = {
  domain: PluginDomain;
  slug: string;
  key: string;
  action: string;
  payload: Record<string, unknown>;
  /** Decrypted configuration (secrets included); never log it. */
  config: Record<string, unknown>;
  context: PluginContext;
};

/**
 * `message` is Simplified Chinese and safe to show; `data` holds only the plugin's normalised
 * result, never a raw third-party structure. Third-party raw text goes to `diagnostics`, which
 * is redacted into the runtime log and never returned to clients.
 */
export type PluginExecuteResult = {
  success: boolean;
  action: string;
  message: string;
  data: Record<string, unknown>;
  diagnostics?: Record<string, unknown>;
};

export type PluginEntryModule = {
  execute(input: PluginExecuteInput): Promise<PluginExecuteResult>;
  [exportName: string]: unknown;
};
