import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FieldErrors } from '../../lib/errors.js';
import { PLUGIN_DOMAINS, type PluginManifest } from './contract.js';

const name = (max: number) => z.string().trim().min(1).max(max);

/**
 * The shape of `manifest.json`. Field definitions, scheduled tasks and hooks are only checked
 * for shape here; their contracts are checked by `config-fields-check`, `scheduled-tasks-check`
 * and `schedule-hooks-check`, which give a reason per field.
 */
export const manifestSchema = z.object({
  info: z.looseObject({
    domain: z.enum(PLUGIN_DOMAINS),
    slug: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
    key: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    name: name(128),
    version: name(32),
    entry: name(255),
    capabilities: z.array(z.string()).default([]),
    driver_binding: z.object({ binding_type: z.string(), binding_key: z.string() }).optional(),
    description: z.string().optional(),
    extra: z
      .looseObject({
        schedule_hooks: z.record(z.string(), z.array(z.unknown())).optional(),
        scheduled_tasks: z.array(z.unknown()).optional(),
      })
      .optional(),
  }),
  config: z.record(z.string(), z.looseObject({ type: z.string() })).default({}),
});

export type ManifestReadResult = { ok: true; manifest: PluginManifest } | { ok: false; errors: FieldErrors };

/** Reads and shape-checks `<dir>/manifest.json` without running any plugin code. */
export async function readManifest(dir: string): Promise<ManifestReadResult> {
  let text: string;
  try {
    text = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch {
    return { ok: false, errors: { manifest: ['缺少 manifest.json 文件'] } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, errors: { manifest: ['manifest.json 不是有效的 JSON'] } };
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join('.') || 'manifest';
      (errors[path] ??= []).push(`manifest.json 中的 ${path} 缺失或格式不正确`);
    }
    return { ok: false, errors };
  }
  // Field types, tasks and hooks are refined by the install checks before the manifest is trusted.
  return { ok: true, manifest: parsed.data as unknown as PluginManifest };
}

/** The first reason of a set of field errors, for a one-line Chinese message. */
export function firstReason(errors: FieldErrors): string {
  return Object.values(errors)[0]?.[0] ?? '插件声明无效';
}
