/**
 * The shape of a plugin's `manifest.json` (spec: Plugin, Plugin lifecycle) and the actor a
 * plugin call runs for. More than one layer speaks it: the plugin runtime reads and checks it,
 * the `plugins` and runtime-log tables store it (`db/models/plugin*.ts`), built-in plugins
 * declare it. Defined once here, below all of them; `plugins/runtime/contract.ts` re-exports it
 * as part of the plugin contract.
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


