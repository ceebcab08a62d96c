import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type FieldErrors, notFound, validationError } from '../../lib/errors.js';
import type { PluginDomain, PluginManifest } from './contract.js';
import { checkConfigFields } from './config-fields-check.js';
import { isDemoSlug } from './domain-labels.js';
import { loadPluginEntry } from './entry.js';
import { firstReason, readManifest } from './manifest.js';
import { checkScheduleHooks } from './schedule-hooks-check.js';
import { checkScheduledTasks, normaliseScheduledTasks } from './scheduled-tasks-check.js';

export type InstallCheckInput = {
  root: string;
  domain: PluginDomain;
  slug: string;
  /** Keys already taken in the domain by other plugins (installed or scanned), key → slug. */
  takenKeys: Map<string, string>;
  /** Task keys in use by built-in tasks and enabled plugins, key → Chinese owner description. */
  takenTaskKeys?: ReadonlyMap<string, string>;
  /** Raw load errors of the entry go here (to the redacted log), never to the client. */
  onLoadError?: (error: unknown) => void;
};

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function merge(into: FieldErrors, from: FieldErrors) {
  for (const [k, list] of Object.entries(from)) (into[k] ??= []).push(...list);
}

function fail(errors: FieldErrors): never {
  throw validationError(errors, `插件安装失败：${firstReason(errors)}`);
}

/**
 * Everything the lifecycle requires before `recognised → installed`: the manifest, slug equal
 * to the folder, a key unique in the domain, supported field types, an entry exporting
 * `execute`, valid scheduled tasks and hooks whose listeners exist. Answers the manifest
 * snapshot to store, with task defaults filled in; a bad declaration is 42200 naming the field.
 */
export async function checkPluginForInstall(input: InstallCheckInput): Promise<PluginManifest> {
  const { root, domain, slug } = input;
  const dir = join(root, domain, slug);
  if (isDemoSlug(slug) || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(slug) || !(await isDirectory(dir))) throw notFound('插件不存在');
  const read = await readManifest(dir);
  if (!read.ok) fail(read.errors);
  const manifest = read.manifest;
  const { info } = manifest;
  const errors: FieldErrors = {};
  const add = (path: string, reason: string) => (errors[path] ??= []).push(reason);
  if (info.slug !== slug) add('info.slug', `manifest.json 中的 slug（${info.slug}）与目录名（${slug}）不一致`);
  if (info.domain !== domain) add('info.domain', `manifest.json 中的 domain（${info.domain}）与所在目录（${domain}）不一致`);
  const owner = input.takenKeys.get(info.key);
  if (owner !== undefined && owner !== slug) add('info.key', `插件 key（${info.key}）已被同领域的插件 ${owner} 使用`);
  merge(errors, checkConfigFields(manifest.config as Record<string, unknown>));
  merge(errors, checkScheduledTasks(info.extra?.scheduled_tasks, input.takenTaskKeys));
  const entry = await loadPluginEntry(dir, info.entry);
  if (!entry.ok) {
    if (entry.error !== undefined) input.onLoadError?.(entry.error);
    add('info.entry', entry.reason);
  } else {
    merge(errors, checkScheduleHooks(info.extra?.schedule_hooks, entry.module));
  }
  if (Object.keys(errors).length > 0) fail(errors);
  const tasks = normaliseScheduledTasks(info.extra?.scheduled_tasks);
  return tasks ? { ...manifest, info: { ...info, extra: { ...info.extra, scheduled_tasks: tasks } } } : manifest;
}
