/**
 * The plugin contract (spec: Plugin, Plugin lifecycle, Events 3-5). A plugin is a folder
 * `plugins/<domain>/<slug>/` with `manifest.json` (read without running code) and an entry
 * module (`info.entry`, e.g. `index.js`, resolved to `index.ts` in source) that exports
 * `execute` and, when declared, the listeners named by `info.extra.schedule_hooks`.
 */

export const PLUGIN_DOMAINS = ['payment', 'verification', 'captcha', 'mail', 'sms', 'upstream', 'addons'] as const;
export type PluginDomain = (typeof PLUGIN_DOMAINS)[number];

export const SUPPORTED_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'switch',
  'select',
  'multi_select',
  'radio',
  'checkbox',
  'json',
  'password',
  'url',
  'email',
  'phone',
  'notice',
  'divider',
  'readonly',
] as const;
export const DISPLAY_ONLY_FIELD_TYPES = ['notice', 'divider', 'readonly'] as const;
export const UNIMPLEMENTED_FIELD_TYPES = ['date', 'datetime', 'time', 'tags', 'key_value', 'array'] as const;
export const FORBIDDEN_FIELD_TYPES = [
  'html',
  'script',
  'iframe',
  'upload',
  'rich_text',
  'custom_vue',
  'remote_component',
  'action_button',
] as const;
export type ConfigFieldType = (typeof SUPPORTED_FIELD_TYPES)[number];

export type ConfigOption = { label: string; value: string | number | boolean };

export type ConfigFieldDefinition = {
  title?: string;
  label?: string;
  type: ConfigFieldType;
  required?: boolean;
  /** A text type holding a secret; `password` fields are secret without it. */
  secret?: boolean;
  value?: unknown;
  default?: unknown;
  /** Map value → label, or an array of label/value pairs. */
  options?: Record<string, string> | ConfigOption[];
  placeholder?: string;
  description?: string;
  width?: 'full' | 'half';
  disabled?: boolean;
  visible?: boolean;
  rules?: { max?: number; pattern?: string; message?: string };
  group?: string;
  visible_when?: { field: string; operator: 'eq' | 'neq' | 'in' | 'not_in'; value: unknown };
  /**
   * Only for `type: 'json'` holding an array of objects (e.g. SMTP accounts): the keys of each
   * object that are secrets. They are stored encrypted, previewed masked, and kept by index when
   * a submission leaves them empty or sends the masked preview back.
   */
  secret_keys?: string[];
};

/** Every N heartbeats (1 = 15 minutes), a cron with minutes in 0/15/30/45, or system automation. */
export type TaskTrigger =
  | { type: 'heartbeats'; every: number }
  | { type: 'cron'; expression: string }
  | { type: 'automation_config'; key: string };

export type ScheduledTaskDeclaration = {
  key: string;
  title: string;
  description: string;
  category: string;
  triggers: TaskTrigger[];
  /** Name of the plugin action run by `execute` for this task; it returns a summary array. */
  handle: string;
  queue?: string;
  /** Seconds. */
  timeout: number;
  /** Seconds; at least timeout + 60. */
  lockTtlSeconds: number;
  manualTriggerable: boolean;
};

/**
 * A schedule-hook listener, in the spec's four forms, naming exports of the entry module:
 * a class (`"DailyReport"`, its `handle` method), a class with method (`"DailyReport@onTick"`),
 * a class and method pair (`["DailyReport", "onTick"]`) or a callable (`{ "callable": "onTick" }`).
 * A listener receives `(hook, context)` and returns an array.
 */
export type ScheduleHookListener = string | [string, string] | { callable: string };

export type PluginManifest = {
  info: {
    domain: PluginDomain;
    slug: string;
    key: string;
    name: string;
    version: string;
    entry: string;
    capabilities: string[];
    driver_binding?: { binding_type: string; binding_key: string };
    description?: string;
    extra?: {
      schedule_hooks?: Record<string, ScheduleHookListener[]>;
      scheduled_tasks?: ScheduledTaskDeclaration[];
      /** Upstream plugins: the provider key they serve (e.g. `upstream_finance_api`). */
      provider_key?: string;
      /** Upstream plugins for product type `other` (spec: Product type resolution). */
      purchase_schema?: { template: string; fields: unknown[] };
      console_schema?: { template: string; sections: unknown[]; actions: unknown[] };
      status_mapping?: Record<string, string>;
    };
  };
  config: Record<string, ConfigFieldDefinition>;
};

export type PluginActor = { type: 'admin' | 'client' | 'system'; id: number | null };

export type PluginContext = {
  traceId: string;
  actor: PluginActor;
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
