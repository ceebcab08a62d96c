import { access } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PluginEntryModule } from './contract.js';

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file of `info.entry` inside the plugin folder. A built tree has `index.js`; the source
 * tree has `index.ts` (tsx and vitest load it), so `.js` falls back to `.ts` (`.mjs` to `.mts`).
 * An entry outside the folder is refused.
 */
export async function resolveEntryFile(dir: string, entry: string): Promise<string | null> {
  const file = resolve(dir, entry);
  const rel = relative(dir, file);
  if (isAbsolute(entry) || rel.startsWith('..') || rel === '') return null;
  const candidates = [file];
  if (file.endsWith('.js')) candidates.push(`${file.slice(0, -3)}.ts`);
  if (file.endsWith('.mjs')) candidates.push(`${file.slice(0, -4)}.mts`);
  for (const candidate of candidates) if (await exists(candidate)) return candidate;
  return null;
}

/** Imports the entry module (cached by the module loader after the first import). */
export async function importEntryModule(file: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

export function isEntryModule(mod: Record<string, unknown>): mod is PluginEntryModule {
  return typeof mod.execute === 'function';
}

export type LoadedEntry = { ok: true; module: PluginEntryModule } | { ok: false; reason: string };

/**
 * Entries already loaded, by folder and entry. The module loader caches modules too, but every
 * `import()` still resolves through the loader (and its hooks under tsx) and the file check
 * touches the disk: on the payment notification path that cost more than the plugin itself.
 */
const loaded = new Map<string, PluginEntryModule>();

/**
 * Resolves and imports the entry; a missing file, a load error or a missing `execute` is a
 * Chinese reason. `reuse` (invocations) takes an entry loaded before without touching the disk;
 * the install check always looks at the files.
 */
export async function loadPluginEntry(dir: string, entry: string, options: { reuse?: boolean } = {}): Promise<LoadedEntry & { error?: unknown }> {
  const cacheKey = `${dir}\0${entry}`;
  const cached = options.reuse ? loaded.get(cacheKey) : undefined;
  if (cached) return { ok: true, module: cached };
  const file = await resolveEntryFile(dir, entry);
  if (!file) return { ok: false, reason: `入口文件 ${entry} 不存在` };
  let mod: Record<string, unknown>;
  try {
    mod = await importEntryModule(file);
  } catch (error) {
    return { ok: false, reason: `入口文件 ${entry} 加载失败`, error };
  }
  if (!isEntryModule(mod)) return { ok: false, reason: `入口文件 ${entry} 没有导出 execute 函数` };
  loaded.set(cacheKey, mod);
  return { ok: true, module: mod };
}
