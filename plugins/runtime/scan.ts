import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PLUGIN_DOMAINS, type PluginDomain, type PluginManifest } from './contract.js';
import { isDemoSlug } from './domain-labels.js';
import { firstReason, readManifest } from './manifest.js';

export type ScannedPlugin = {
  domain: PluginDomain;
  slug: string;
  dir: string;
  manifest: PluginManifest | null;
  /** Chinese reason when the manifest is missing or malformed; install gives the full list. */
  error: string | null;
};

async function listDirectories(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

/**
 * Every plugin folder `<root>/<domain>/<slug>/` of the seven domains, read without running
 * plugin code. `runtime` is not a domain folder and is never visited; `demo_` folders are skipped.
 */
export async function scanPlugins(root: string): Promise<ScannedPlugin[]> {
  const found: ScannedPlugin[] = [];
  for (const domain of PLUGIN_DOMAINS) {
    for (const slug of await listDirectories(join(root, domain))) {
      if (isDemoSlug(slug) || slug === 'runtime') continue;
      const dir = join(root, domain, slug);
      const read = await readManifest(dir);
      if (!read.ok) {
        found.push({ domain, slug, dir, manifest: null, error: firstReason(read.errors) });
        continue;
      }
      const { info } = read.manifest;
      let error: string | null = null;
      if (info.slug !== slug) error = `manifest.json 中的 slug（${info.slug}）与目录名（${slug}）不一致`;
      else if (info.domain !== domain) error = `manifest.json 中的 domain（${info.domain}）与所在目录（${domain}）不一致`;
      found.push({ domain, slug, dir, manifest: read.manifest, error });
    }
  }
  return found;
}
